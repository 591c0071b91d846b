// seedgen: writes or checks the generated seed corpora.
//   seedgen write CORPORA_DIR [HARNESS...]   replace CORPORA_DIR/<h>/seeds/ (all harnesses
//                                            by default)
//   seedgen check FILE...                    the files of corpora/<h>/seeds/ must be exactly
//                                            the generated seeds (used by seeds_current_test)
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "fuzz/seedgen.h"

namespace {

using spsq_fuzz::Seed;

int usage() {
  std::fprintf(stderr,
               "usage: seedgen write CORPORA_DIR [HARNESS...]\n"
               "       seedgen check FILE...\n");
  return 2;
}

bool make_dir(const std::string& path) {
  if (mkdir(path.c_str(), 0755) == 0 || errno == EEXIST) return true;
  std::fprintf(stderr, "seedgen: cannot create %s: %s\n", path.c_str(), std::strerror(errno));
  return false;
}

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
}

int write_seeds(const std::string& root, std::vector<std::string> harnesses) {
  if (harnesses.empty()) harnesses = spsq_fuzz::seeded_harnesses();
  for (const std::string& h : harnesses) {
    std::vector<Seed> seeds;
    if (!spsq_fuzz::generate_seeds(h, &seeds)) {
      std::fprintf(stderr, "seedgen: no seed generator for harness '%s'\n", h.c_str());
      return 2;
    }
    const std::string dir = root + "/" + h + "/seeds";
    if (!make_dir(root + "/" + h) || !make_dir(dir)) return 1;
    // Stale seeds go: the directory holds exactly what the generator makes.
    if (DIR* d = opendir(dir.c_str())) {
      while (dirent* e = readdir(d)) {
        if (e->d_name[0] != '.') unlink((dir + "/" + e->d_name).c_str());
      }
      closedir(d);
    }
    for (const Seed& s : seeds) {
      std::ofstream out(dir + "/" + s.name, std::ios::binary);
      out.write(reinterpret_cast<const char*>(s.bytes.data()),
                static_cast<std::streamsize>(s.bytes.size()));
      if (!out) {
        std::fprintf(stderr, "seedgen: cannot write %s/%s\n", dir.c_str(), s.name.c_str());
        return 1;
      }
    }
    std::printf("%s: %zu seeds in %s\n", h.c_str(), seeds.size(), dir.c_str());
  }
  return 0;
}

int check_seeds(int argc, char** argv) {
  // harness -> name -> path, for files under .../<harness>/seeds/<name>.
  std::map<std::string, std::map<std::string, std::string>> found;
  for (int i = 0; i < argc; ++i) {
    const std::string path = argv[i];
    const size_t s = path.rfind("/seeds/");
    if (s == std::string::npos) continue;
    const size_t h = path.rfind('/', s - 1);
    const std::string harness =
        path.substr(h == std::string::npos ? 0 : h + 1, s - (h == std::string::npos ? 0 : h + 1));
    found[harness][path.substr(s + 7)] = path;
  }
  int bad = 0;
  for (const std::string& h : spsq_fuzz::seeded_harnesses()) {
    std::vector<Seed> seeds;
    spsq_fuzz::generate_seeds(h, &seeds);
    std::map<std::string, std::string>& files = found[h];
    for (const Seed& s : seeds) {
      auto it = files.find(s.name);
      if (it == files.end()) {
        std::fprintf(stderr, "%s: seed %s is missing (run tools/fuzz seeds)\n", h.c_str(),
                     s.name.c_str());
        ++bad;
        continue;
      }
      if (read_file(it->second) != s.bytes) {
        std::fprintf(stderr, "%s: seed %s differs from the generator (run tools/fuzz seeds)\n",
                     h.c_str(), s.name.c_str());
        ++bad;
      }
      files.erase(it);
    }
    for (const auto& extra : files) {
      std::fprintf(stderr, "%s: seeds/%s is not generated (fuzzer finds belong in corpus/)\n",
                   h.c_str(), extra.first.c_str());
      ++bad;
    }
    std::printf("%s: %zu seeds checked\n", h.c_str(), seeds.size());
  }
  return bad == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  const std::string cmd = argv[1];
  if (cmd == "write" && argc >= 3) {
    return write_seeds(argv[2], std::vector<std::string>(argv + 3, argv + argc));
  }
  if (cmd == "check") return check_seeds(argc - 2, argv + 2);
  return usage();
}
