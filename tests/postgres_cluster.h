// Test helper: a throwaway PostgreSQL cluster made with Debian's initdb and pg_ctl in a
// temporary directory, reached on a Unix socket there (no TCP), run as a user who is not
// root (nobody, where the tests run as root: the server refuses root). Stopped and removed
// when the object goes.
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace abench::testing {

class PostgresCluster {
 public:
  PostgresCluster() {
    bin_ = server_binaries();
    char pattern[] = "/tmp/abench-pg-XXXXXX";
    if (!mkdtemp(pattern)) throw std::runtime_error("mkdtemp failed");
    dir_ = pattern;
    if (geteuid() == 0) {
      std::filesystem::permissions(dir_, std::filesystem::perms::owner_all);
      if (chown(dir_.c_str(), kNobody, kNobody) != 0) throw std::runtime_error("chown of the cluster's directory");
    }
    shell(fmt::format("{}/initdb -D {}/data -U abench -A trust --no-sync -E UTF8 --locale=C >{}/initdb.log 2>&1", bin_,
                      dir_.string(), dir_.string()));
    shell(
        fmt::format("{}/pg_ctl -D {}/data -l {}/server.log -w -t 60 -o \"-k {} -c listen_addresses= -F\" start "
                    ">{}/pg_ctl.log 2>&1",
                    bin_, dir_.string(), dir_.string(), dir_.string(), dir_.string()));
    started_ = true;
  }
  ~PostgresCluster() {
    if (started_)
      shell(fmt::format("{}/pg_ctl -D {}/data -m immediate stop >/dev/null 2>&1", bin_, dir_.string()), false);
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  PostgresCluster(const PostgresCluster&) = delete;
  PostgresCluster& operator=(const PostgresCluster&) = delete;

  // A URL of the cluster's database `name` ("postgres" is there from the start).
  std::string url(const std::string& name = "postgres") const {
    return fmt::format("postgresql:///{}?host={}&user=abench", name, dir_.string());
  }

 private:
  static constexpr uid_t kNobody = 65534;

  // The newest server Debian's postgresql package installed.
  static std::string server_binaries() {
    std::string newest;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator("/usr/lib/postgresql", error))
      if (std::filesystem::exists(entry.path() / "bin" / "initdb") && entry.path().string() > newest)
        newest = entry.path().string();
    if (newest.empty())
      throw std::runtime_error("no PostgreSQL server in /usr/lib/postgresql (scripts/test installs postgresql-15)");
    return newest + "/bin";
  }
  void shell(const std::string& command, bool must_succeed = true) const {
    const std::string as_user =
        geteuid() == 0 ? fmt::format("setpriv --reuid={0} --regid={0} --clear-groups -- sh -c '{1}'", kNobody, command)
                       : command;
    if (std::system(as_user.c_str()) != 0 && must_succeed)
      throw std::runtime_error(fmt::format("the test cluster failed: {} (logs in {})", command, dir_.string()));
  }

  std::string bin_;
  std::filesystem::path dir_;
  bool started_ = false;
};

}  // namespace abench::testing
