#include "nimble/analysis/sharing_fit.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace nimble::analysis {
namespace {

struct Score {
  int64_t missed = 0;  // cases beyond the tolerance
  double mean = 0;
  double worst = 0;
  bool operator<(const Score& o) const {
    if (missed != o.missed) return missed < o.missed;
    return mean != o.mean ? mean < o.mean : worst < o.worst;
  }
};

// The grid's models; the identity first, so that it wins ties (no calibration unless it helps).
std::vector<SharingModel> Models(const SharingGrid& grid) {
  std::vector<SharingModel> out{SharingModel{}};
  for (Dispatch dispatch : grid.dispatches) {
    for (double floor : grid.floors) {
      for (double exponent : grid.exponents) {
        SharingModel m{floor, exponent, "", dispatch};
        if (!m.identity()) out.push_back(m);
      }
    }
  }
  out.insert(out.end(), grid.crowded.begin(), grid.crowded.end());
  return out;
}

// The best model's index over the cases not equal to `skip` (-1: all).
size_t Best(const std::vector<std::vector<double>>& errors, int64_t skip, double tolerance) {
  size_t best = 0;
  Score best_score{std::numeric_limits<int64_t>::max(), std::numeric_limits<double>::infinity(), 0};
  for (size_t m = 0; m < errors.size(); ++m) {
    Score s;
    size_t n = 0;
    for (size_t c = 0; c < errors[m].size(); ++c) {
      if (static_cast<int64_t>(c) == skip) continue;
      s.mean += std::abs(errors[m][c]);
      if (std::abs(errors[m][c]) > tolerance) ++s.missed;
      s.worst = std::max(s.worst, std::abs(errors[m][c]));
      ++n;
    }
    if (n > 0) s.mean /= static_cast<double>(n);
    if (s < best_score) {
      best_score = s;
      best = m;
    }
  }
  return best;
}

}  // namespace

SharingGrid DefaultSharingGrid() {
  SharingGrid grid;
  for (int i = 0; i <= 24; ++i) grid.floors.push_back(0.025 * i);
  for (int i = 20; i >= 4; --i) grid.exponents.push_back(0.05 * i);
  grid.dispatches = {Dispatch::kShared, Dispatch::kInOrder};
  for (int f = 0; f <= 6; ++f) {
    for (int e = 10; e >= 7; --e) {
      for (double crowding : {0.125, 0.25, 0.375, 0.5, 0.75, 1.0}) {
        for (int k = 2; k <= 8; ++k) {
          SharingModel m{0.05 * f, 0.1 * e, "", Dispatch::kInOrder};
          m.crowding = crowding;
          m.knee = 0.1 * k;
          grid.crowded.push_back(m);
        }
      }
    }
  }
  return grid;
}

double RelativeError(int64_t predicted_ns, int64_t measured_ns) {
  return measured_ns > 0 ? static_cast<double>(predicted_ns - measured_ns) / static_cast<double>(measured_ns) : 0.0;
}

StatusOr<std::vector<int64_t>> PredictCases(std::span<const SharingCase> cases, const SharingModel& model) {
  std::vector<int64_t> out;
  out.reserve(cases.size());
  for (const SharingCase& c : cases) {
    PredictionOptions options = c.costs;
    options.sharing = model;
    StatusOr<int64_t> p = PredictMultiStream(c.dag, c.workload, c.multi, options);
    if (!p.ok()) return p.status().WithContext(c.name);
    out.push_back(*p);
  }
  return out;
}

StatusOr<SharingFit> FitSharing(std::span<const SharingCase> cases, const SharingGrid& grid) {
  if (cases.empty()) return InvalidArgument("calibration needs at least one recorded case");
  if (grid.floors.empty() || grid.exponents.empty() || grid.dispatches.empty()) {
    return InvalidArgument("calibration grid has an empty axis");
  }
  if (!(grid.tolerance > 0)) return InvalidArgument("calibration tolerance must be > 0");
  for (const SharingCase& c : cases) {
    if (c.measured_ns <= 0) return InvalidArgument(c.name + ": no measured multi-stream latency");
  }
  const std::vector<SharingModel> models = Models(grid);
  std::vector<std::vector<int64_t>> predicted(models.size(), std::vector<int64_t>(cases.size()));
  std::vector<std::vector<double>> errors(models.size(), std::vector<double>(cases.size()));
  for (size_t c = 0; c < cases.size(); ++c) {
    PredictionOptions options = cases[c].costs;
    for (size_t m = 0; m < models.size(); ++m) {
      options.sharing = models[m];
      StatusOr<int64_t> p = PredictMultiStream(cases[c].dag, cases[c].workload, cases[c].multi, options);
      if (!p.ok()) return p.status().WithContext(cases[c].name);
      predicted[m][c] = *p;
      errors[m][c] = RelativeError(*p, cases[c].measured_ns);
    }
  }
  SharingFit fit;
  fit.tolerance = grid.tolerance;
  const size_t all = Best(errors, -1, grid.tolerance);
  fit.model = models[all];
  for (size_t c = 0; c < cases.size(); ++c) {
    const size_t held = cases.size() > 1 ? Best(errors, static_cast<int64_t>(c), grid.tolerance) : all;
    fit.cases.push_back({cases[c].name, cases[c].measured_ns, predicted[0][c], predicted[all][c], predicted[held][c],
                         models[held]});
  }
  return fit;
}

}  // namespace nimble::analysis
