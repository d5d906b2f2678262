// abench-worker-<backend>: the same harness, built once per allocator backend.
#include "harness/worker.h"

int main(int argc, char** argv) { return abench::worker_main(argc, argv); }
