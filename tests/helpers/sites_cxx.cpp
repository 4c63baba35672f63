// sites_cxx.cpp - a C++ service for record --sites (tests/e2e/sites_edges.sh,
// docs/sites.md): operator new is sampled through malloc, and the frames'
// C++ names are demangled. Each request, Store::keep(std::size_t) keeps a
// 4 KiB std::vector<char> (new'd: a leak of 4,096 bytes a request plus the
// vector's own 24) and Scratch::churn() news and deletes a string (none).
// It appends "req" to LOG per request.
//
// Usage: sites_cxx SECONDS LOG. Built without sanitizers (the shim runs in
// it), with symbols.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace shop {

class Store {
public:
	__attribute__((noinline)) void keep(std::size_t bytes)
	{
		kept_.push_back(std::make_unique<std::vector<char>>(bytes, 'k'));
	}
	std::size_t size() const { return kept_.size(); }

private:
	std::vector<std::unique_ptr<std::vector<char>>> kept_;
};

struct Scratch {
	__attribute__((noinline)) static void churn()
	{
		auto *s = new std::string(3000, 's');
		delete s;
	}
};

} // namespace shop

int main(int argc, char **argv)
{
	if (argc < 3) {
		std::fprintf(stderr, "usage: sites_cxx SECONDS LOG\n");
		return 2;
	}
	std::FILE *log = std::fopen(argv[2], "a");
	if (!log)
		return 2;
	shop::Store store;
	auto end = std::chrono::steady_clock::now() +
		   std::chrono::duration<double>(std::atof(argv[1]));
	while (std::chrono::steady_clock::now() < end) {
		store.keep(4096);
		shop::Scratch::churn();
		std::fputs("req\n", log);
		std::fflush(log);
		std::this_thread::sleep_for(std::chrono::milliseconds(1));
	}
	std::printf("requests %zu\n", store.size());
	return 0;
}
