// Plain replay driver: runs LLVMFuzzerTestOneInput over every file in the
// directories or files named on the command line. Used by the *_regression
// tests (every bazel test replays the corpora), by non-fuzzing builds and as
// the one-line crash reproducer. When an input crashes, its path is printed
// so a failing regression test names the file.
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) __attribute__((weak));
// Present only in sanitizer builds; lets the driver name the input after a
// sanitizer report (which exits without raising a signal).
extern "C" void __sanitizer_set_death_callback(void (*)(void)) __attribute__((weak));

namespace {

char g_current[4096];

void say_current() {
  if (g_current[0] == '\0') return;
  const char prefix[] = "replay: crashing input: ";
  ssize_t ignored = write(2, prefix, sizeof(prefix) - 1);
  ignored = write(2, g_current, strlen(g_current));
  ignored = write(2, "\n", 1);
  (void)ignored;
}

void on_fatal_signal(int sig) {
  say_current();
  signal(sig, SIG_DFL);
  raise(sig);
}

// Dictionaries, build files and notes live beside the inputs; they are not inputs.
bool is_input(const std::string& name) {
  const auto ends_with = [&](const char* suffix) {
    const size_t n = std::strlen(suffix);
    return name.size() >= n && name.compare(name.size() - n, n, suffix) == 0;
  };
  const std::string base = name.substr(name.rfind('/') + 1);
  return !(base == "BUILD" || base.rfind("README", 0) == 0 || ends_with(".dict") ||
           ends_with(".md") || base.rfind('.', 0) == 0);
}

void collect(const std::string& path, std::vector<std::string>* files) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    std::fprintf(stderr, "replay: cannot stat %s: %s\n", path.c_str(), std::strerror(errno));
    std::exit(2);
  }
  if (!S_ISDIR(st.st_mode)) {
    if (is_input(path)) files->push_back(path);
    return;
  }
  DIR* dir = opendir(path.c_str());
  if (dir == nullptr) {
    std::fprintf(stderr, "replay: cannot open %s: %s\n", path.c_str(), std::strerror(errno));
    std::exit(2);
  }
  while (dirent* e = readdir(dir)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    collect(path + "/" + name, files);
  }
  closedir(dir);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE_OR_DIR...\n", argv[0]);
    return 2;
  }
  if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);
  for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL}) signal(sig, on_fatal_signal);
  if (__sanitizer_set_death_callback != nullptr) __sanitizer_set_death_callback(say_current);

  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) collect(argv[i], &files);
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    std::fprintf(stderr, "replay: no inputs under the given paths\n");
    return 2;
  }
  for (const std::string& f : files) {
    std::ifstream in(f, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "replay: cannot read %s\n", f.c_str());
      return 2;
    }
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                     std::istreambuf_iterator<char>());
    std::snprintf(g_current, sizeof(g_current), "%s", f.c_str());
    // Copy into an exactly-sized heap block so ASan sees reads past the end.
    uint8_t* copy = static_cast<uint8_t*>(std::malloc(bytes.size() ? bytes.size() : 1));
    if (!bytes.empty()) std::memcpy(copy, bytes.data(), bytes.size());
    LLVMFuzzerTestOneInput(copy, bytes.size());
    std::free(copy);
  }
  g_current[0] = '\0';
  std::printf("replayed %zu inputs\n", files.size());
  return 0;
}
