// Golden-output speed: whole-process time and peak memory of `nettwin lb --engine fast` against the project's
// independent Python reference (nettwin.lb.ref, scripts/nettwin/lb/ref.py) on the same files, every figure from
// one run of this program. Generates its captures (never checked in) and deletes them unless --keep.
//   build/golden_bench [--dir D] [--repeat N] [--mixed-frames N] [--big-mb M] [--quick] [--keep]
// Each command runs --repeat times (default 3); the table shows the fastest run (the machine is shared) and
// that run's peak resident memory (getrusage ru_maxrss of the child).
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "model/common/pcap.h"
#include "tb/tests/lb_frames.h"

namespace nettwin::lb {
namespace {

struct Usage {
  double seconds = 0;      // wall
  double cpu_seconds = 0;  // user + system of the child: less sensitive to other load on the machine
  double max_rss_mb = 0;
};

// Runs argv with stdout to /dev/null; exits the benchmark if the command fails.
Usage RunOnce(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = open("/dev/null", O_WRONLY);
    dup2(fd, 1);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  rusage ru{};
  wait4(pid, &status, 0, &ru);
  Usage u;
  u.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  u.max_rss_mb = static_cast<double>(ru.ru_maxrss) / 1024.0;
  auto secs = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  u.cpu_seconds = secs(ru.ru_utime) + secs(ru.ru_stime);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "golden_bench: command failed (status %d):", status);
    for (const auto& a : argv) std::fprintf(stderr, " %s", a.c_str());
    std::fprintf(stderr, "\n");
    std::exit(1);
  }
  return u;
}

Usage Best(const std::vector<std::string>& argv, int repeat) {
  Usage best = RunOnce(argv);
  for (int i = 1; i < repeat; ++i) {
    const Usage u = RunOnce(argv);
    if (u.seconds < best.seconds) best = u;
  }
  return best;
}

struct Capture {
  std::string name, path;
  uint64_t frames = 0, bytes = 0;
};

// Frames from `make` (called with the frame index), microsecond timestamps 1 us apart, until `frames` frames
// or `min_bytes` bytes of file.
template <class Make>
Capture Generate(const std::string& name, const std::string& path, uint64_t frames, uint64_t min_bytes, Make make) {
  Capture c{name, path, 0, 0};
  PcapWriter w(path, {PcapFormat::kPcap, false});
  while (c.frames < frames || (min_bytes > 0 && c.bytes < min_bytes)) {
    const Packet& p = make(c.frames);
    w.Write(1700000000000000000ull + c.frames * 1000, p.bytes.data(), p.bytes.size());
    ++c.frames;
    c.bytes += 16 + p.bytes.size();
  }
  w.Close();
  c.bytes += 24;
  return c;
}

bool SameFrames(const std::string& a, const std::string& b) {
  PcapReader ra(a), rb(b);
  Packet pa, pb;
  for (;;) {
    const bool ha = ra.Next(&pa), hb = rb.Next(&pb);
    if (ha != hb) return false;
    if (!ha) return true;
    if (pa.bytes != pb.bytes || pa.time_ns / 1000 != pb.time_ns / 1000) return false;
  }
}

std::string Dir(const char* argv0) {
  std::string s = argv0;
  const size_t slash = s.rfind('/');
  return slash == std::string::npos ? "." : s.substr(0, slash);
}

}  // namespace
}  // namespace nettwin::lb

int main(int argc, char** argv) {
  using namespace nettwin;
  using namespace nettwin::lb;
  std::string dir = "/tmp/nettwin_golden_bench";
  int repeat = 3;
  uint64_t mixed_frames = 60000, big_mb = 1024, python_big_mb = 128;
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    const std::string o = argv[i];
    auto val = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (o == "--dir") dir = val();
    else if (o == "--repeat") repeat = std::max(1, std::atoi(val().c_str()));
    else if (o == "--mixed-frames") mixed_frames = std::strtoull(val().c_str(), nullptr, 10);
    else if (o == "--big-mb") big_mb = std::strtoull(val().c_str(), nullptr, 10);
    else if (o == "--keep") keep = true;
    else if (o == "--quick") {
      mixed_frames = 6000;
      big_mb = 64;
      python_big_mb = 16;
      repeat = 1;
    } else {
      std::fprintf(stderr, "usage: golden_bench [--dir D] [--repeat N] [--mixed-frames N] [--big-mb M] [--quick] [--keep]\n");
      return 2;
    }
  }
  mkdir(dir.c_str(), 0755);
  const std::string nettwin = Dir(argv[0]) + "/nettwin";
  // the reference runs as `python3 -m nettwin.lb.ref` with the source tree's package on PYTHONPATH
  setenv("PYTHONPATH", (std::string(NT_SOURCE_DIR) + "/scripts").c_str(), 1);
  const std::string tables = dir + "/tables.txt";
  std::ofstream(tables) << testing::FullTables();

  std::mt19937_64 rng(9);
  const std::vector<Packet> mixed_set = testing::RandomTraffic(rng, 4096);
  std::vector<Packet> jumbo_set;
  for (int i = 0; i < 64; ++i) {
    testing::FrameSpec s;
    s.v6 = i % 2;
    s.tick = rng() % 4096;
    s.payload = testing::RandomPayload(rng, 8900);
    jumbo_set.push_back(Packet{testing::BuildFrame(s), 0});
  }
  auto mixed_frame = [&](uint64_t i) -> const Packet& { return mixed_set[i % mixed_set.size()]; };
  auto jumbo_frame = [&](uint64_t i) -> const Packet& { return jumbo_set[i % jumbo_set.size()]; };
  const uint64_t mb = 1000000;
  std::vector<Capture> caps = {
      Generate("mixed sizes and drops", dir + "/mixed.pcap", mixed_frames, 0, mixed_frame),
      Generate("9 KB jumbo frames", dir + "/jumbo_small.pcap", 0, python_big_mb * mb, jumbo_frame),
      Generate("9 KB jumbo frames", dir + "/jumbo_big.pcap", 0, big_mb * mb, jumbo_frame),
  };

  std::printf("| capture | frames | MB | `nettwin lb --engine fast` wall (cpu) | GB/s wall (cpu) | max RSS | "
              "`nettwin.lb.ref` (Python) wall (cpu) | max RSS | fast / Python wall (cpu) | same frames |\n"
              "|---|---|---|---|---|---|---|---|---|---|\n");
  for (size_t k = 0; k < caps.size(); ++k) {
    const Capture& c = caps[k];
    const std::string out_c = dir + "/out_fast.pcap", out_py = dir + "/out_py.pcap";
    const Usage fast = Best({nettwin, "lb", "--engine", "fast", "--tables", tables, "--in", c.path, "--out", out_c},
                            repeat);
    const double mbytes = static_cast<double>(c.bytes) / 1e6;
    std::printf("| %s | %llu | %.0f | %.3f s (%.3f s) | %.2f (%.2f) | %.1f MB |", c.name.c_str(),
                static_cast<unsigned long long>(c.frames), mbytes, fast.seconds, fast.cpu_seconds,
                mbytes / 1000.0 / fast.seconds, mbytes / 1000.0 / fast.cpu_seconds, fast.max_rss_mb);
    if (k + 1 < caps.size()) {  // the Python reference holds a whole capture in memory: not on the big one
      const Usage py = Best({"/usr/bin/python3", "-m", "nettwin.lb.ref", "--tables", tables, "--in", c.path, "--out", out_py}, repeat);
      std::printf(" %.3f s (%.3f s) | %.1f MB | %.1fx (%.1fx) | %s |\n", py.seconds, py.cpu_seconds, py.max_rss_mb,
                  py.seconds / fast.seconds, py.cpu_seconds / fast.cpu_seconds,
                  SameFrames(out_c, out_py) ? "yes" : "NO");
    } else {
      std::printf(" (not run) | | | |\n");
    }
    std::fflush(stdout);
    std::remove(out_c.c_str());
    std::remove(out_py.c_str());
  }
  if (!keep) {
    for (const Capture& c : caps) std::remove(c.path.c_str());
    std::remove(tables.c_str());
    rmdir(dir.c_str());
  }
  return 0;
}
