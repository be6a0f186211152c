// A small C++ program built with g++ -static (glibc, libstdc++): iostreams,
// containers, algorithms, exceptions, a static constructor, std::thread-free.
// tools/test-programs runs it on Linux and on the kernel and compares.
#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

struct Registry {
	std::map<std::string, int> counts;
	Registry() { counts["static-init"] = 1; }
};
static Registry registry;

static int parse(const std::string &w)
{
	size_t used = 0;
	int v = std::stoi(w, &used);
	if (used != w.size())
		throw std::invalid_argument("not a number: " + w);
	return v;
}

int main(int argc, char **argv)
{
	std::vector<int> nums;
	std::string line;
	int bad = 0;

	while (std::getline(std::cin, line)) {
		std::istringstream in(line);
		std::string w;
		while (in >> w) {
			try {
				nums.push_back(parse(w));
			} catch (const std::exception &e) {
				std::cerr << "skip: " << e.what() << "\n";
				bad++;
			}
		}
	}
	std::sort(nums.begin(), nums.end());
	auto uniq = std::make_unique<std::map<int, int>>();
	for (int v : nums)
		(*uniq)[v]++;
	long sum = 0;
	for (int v : nums)
		sum += v;
	std::cout << "args " << argc - 1;
	for (int i = 1; i < argc; i++)
		std::cout << " [" << argv[i] << "]";
	std::cout << "\ncount " << nums.size() << " distinct " << uniq->size() << " sum " << sum << "\n";
	for (auto &kv : *uniq)
		std::cout << kv.first << " x" << kv.second << "\n";
	std::cout << "registry " << registry.counts["static-init"] << "\n";
	return bad ? 2 : 0;
}
