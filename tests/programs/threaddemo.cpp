// A std::thread program for glibc and libstdc++ (g++ -static -pthread),
// run unmodified on Linux and on the kernel by tools/test-programs: its
// output and exit status must be the same. Everything it prints is decided
// by the program (exact counts and sums after joins), never by scheduling.
//
// std::mutex counter over 4 threads, a condition_variable queue, futex
// waits of std::atomic (C++20 wait/notify), thread_local objects with
// constructors and destructors, std::async and futures, std::shared_mutex,
// std::call_once, join of every thread.
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <future>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <vector>

namespace {

constexpr int kThreads = 4;
constexpr int kRounds = 20000;
constexpr int kItems = 3000;

std::mutex counter_lock;
long counter;

std::mutex queue_lock;
std::condition_variable queue_cv;
std::deque<int> queue;

std::atomic<int> tls_constructed{0}, tls_destroyed{0};

struct PerThread {
	long value = 0;
	PerThread() { tls_constructed.fetch_add(1); }
	~PerThread() { tls_destroyed.fetch_add(1); }
};
thread_local PerThread per_thread;

std::once_flag once;
int once_runs;

long consume()
{
	long sum = 0;
	per_thread.value = 0;           // constructs this thread's object
	for (;;) {
		std::unique_lock<std::mutex> l(queue_lock);
		queue_cv.wait(l, [] { return !queue.empty(); });
		int v = queue.front();
		queue.pop_front();
		if (v < 0)
			return sum;
		sum += v;
		per_thread.value += 1;
	}
}

}  // namespace

int main()
{
	std::vector<std::thread> threads;
	for (int i = 0; i < kThreads; i++)
		threads.emplace_back([] {
			for (int r = 0; r < kRounds; r++) {
				std::lock_guard<std::mutex> g(counter_lock);
				counter++;
			}
			std::call_once(once, [] { once_runs++; });
		});
	for (auto &t : threads)
		t.join();
	std::printf("mutex counter %ld (expected %d), call_once ran %d time(s)\n", counter, kThreads * kRounds,
		    once_runs);

	std::vector<std::future<long>> sums;
	for (int i = 0; i < 3; i++)
		sums.push_back(std::async(std::launch::async, consume));
	for (int i = 1; i <= kItems; i++) {
		{
			std::lock_guard<std::mutex> g(queue_lock);
			queue.push_back(i);
		}
		queue_cv.notify_one();
	}
	{
		std::lock_guard<std::mutex> g(queue_lock);
		for (int i = 0; i < 3; i++)
			queue.push_back(-1);
	}
	queue_cv.notify_all();
	long total = 0;
	for (auto &f : sums)
		total += f.get();
	std::printf("queue sum %ld (expected %d)\n", total, kItems * (kItems + 1) / 2);

	// A relay of futex waits: each thread waits for its turn on one atomic word, then passes it on.
	std::atomic<int> turn{0};
	std::vector<int> order;
	std::mutex order_lock;
	threads.clear();
	for (int i = kThreads - 1; i >= 0; i--)
		threads.emplace_back([&, i] {
			for (int v = turn.load(); v != i; v = turn.load())
				turn.wait(v);
			{
				std::lock_guard<std::mutex> g(order_lock);
				order.push_back(i);
			}
			turn.store(i + 1);
			turn.notify_all();
		});
	for (auto &t : threads)
		t.join();
	std::printf("relay order:");
	for (int v : order)
		std::printf(" %d", v);
	std::printf("\n");

	std::shared_mutex rw;
	std::vector<long> table(kThreads);
	std::atomic<int> written{0};
	threads.clear();
	std::vector<long> seen(kThreads);
	for (int i = 0; i < kThreads; i++)
		threads.emplace_back([&, i] {
			{
				std::unique_lock<std::shared_mutex> w(rw);
				table[i] = (long)i * i;
			}
			written.fetch_add(1);
			written.notify_all();
			for (int v = written.load(); v != kThreads; v = written.load())
				written.wait(v);
			std::shared_lock<std::shared_mutex> r(rw);
			long s = 0;
			for (long x : table)
				s += x;
			seen[i] = s;
		});
	for (auto &t : threads)
		t.join();
	std::printf("shared_mutex sums %ld %ld %ld %ld\n", seen[0], seen[1], seen[2], seen[3]);
	std::printf("thread_local: constructed %d, destroyed %d (the three consumers')\n", tls_constructed.load(),
		    tls_destroyed.load());
	return counter == kThreads * kRounds && total == kItems * (kItems + 1) / 2 ? 5 : 1;
}
