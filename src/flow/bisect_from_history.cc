#include "src/flow/bisect_from_history.h"

#include <fmt/format.h>

#include "src/store/history_changes.h"
#include "src/store/history_series.h"
#include "src/store/history_store.h"
#include "src/util/errors.h"

namespace abench {

void take_change_point(BisectRequest& r) {
  if (!r.good.empty() || !r.bad.empty())
    throw UsageError("options --good/--bad: not with --from-history, whose change point names both commits");
  HistoryStore store(r.from_history);
  const std::vector<Series> series = read_series(store, {});
  const std::vector<SeriesChange> changes = find_changes(series, ChangePointRule{});
  if (r.change < 1 || static_cast<std::size_t>(r.change) > changes.size())
    throw UsageError(
        fmt::format("option --change: {} is not a change of the history store (allowed: 1 to {}, the "
                    "rows of changes.csv from `abench history changes` at its defaults)",
                    r.change, changes.size()));
  const SeriesChange& c = changes[static_cast<std::size_t>(r.change) - 1];
  if (c.by_abench)
    throw UsageError(
        fmt::format("option --change: change {} is where the measuring abench changed (at {}), not the "
                    "library: there is no commit of it to find",
                    r.change, c.commit));
  r.good = c.previous_commit;
  r.bad = c.commit;
  const Series& s = *c.series;
  MeasureOptions& m = r.measure;
  m.backends = {s.backend};
  m.policies = {s.policy};
  m.workloads = {s.workload};
  m.sizes = {std::to_string(s.size)};
  m.alignments = {fmt::format("{}:{}", s.requested, s.preferred)};
  m.lives = {std::to_string(s.live)};
  if (!m.protocol.has("measure")) m.protocol.give("measure", s.measure);
  fmt::print("bisect: change {} of {}: {} {} {} {} B, {:+.2f}% from {} to {}\n", r.change, r.from_history, s.variant,
             s.workload, s.policy, s.size, c.change * 100, c.previous_commit, c.commit);
}

}  // namespace abench
