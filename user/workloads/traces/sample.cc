// The C++ input of the g++ trace (tools/profile/profile-traces): a small word-index
// program written for this purpose, in the template-heavy style of the code
// whose compilation the 2001 report timed (gtk--): containers, algorithms,
// regular expressions and streams instantiate a great deal of library code.
#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

struct Posting {
	std::string file;
	unsigned line;
	bool operator<(const Posting &o) const { return std::tie(file, line) < std::tie(o.file, o.line); }
};

class Index {
public:
	void add(const std::string &file, unsigned line, const std::string &text)
	{
		static const std::regex word("[A-Za-z_][A-Za-z0-9_]*");
		for (auto it = std::sregex_iterator(text.begin(), text.end(), word);
		     it != std::sregex_iterator(); ++it)
			words_[it->str()].insert(Posting{file, line});
		lines_[file]++;
	}

	std::vector<std::pair<std::string, std::size_t>> most_common(std::size_t n) const
	{
		std::vector<std::pair<std::string, std::size_t>> v;
		for (const auto &kv : words_)
			v.emplace_back(kv.first, kv.second.size());
		std::partial_sort(v.begin(), v.begin() + std::min(n, v.size()), v.end(),
				  [](const auto &a, const auto &b) { return a.second > b.second; });
		v.resize(std::min(n, v.size()));
		return v;
	}

	std::size_t files() const { return lines_.size(); }

private:
	std::map<std::string, std::set<Posting>> words_;
	std::unordered_map<std::string, unsigned> lines_;
};

} // namespace

int main(int argc, char **argv)
{
	auto index = std::make_unique<Index>();
	for (int i = 1; i < argc; i++) {
		std::istringstream in(argv[i]);
		std::string line;
		unsigned n = 0;
		while (std::getline(in, line))
			index->add("arg" + std::to_string(i), ++n, line);
	}
	for (const auto &[w, count] : index->most_common(10))
		std::cout << w << ' ' << count << '\n';
	std::cout << index->files() << " inputs\n";
	return 0;
}
