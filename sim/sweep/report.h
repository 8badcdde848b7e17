// Sweep reports: the comparison table as CSV and Markdown, SVG plots of chosen metrics against a
// swept parameter, and the report directory that appears whole or not at all.
#pragma once

#include <string>
#include <vector>

#include "sim/sweep/results.h"

namespace flycol::sweep {

std::string csv_table(const SweepResults& r);
// The table alone (one row per point), as pasted in reviews and docs.
std::string markdown_table(const SweepResults& r);

struct PlotFile {
  std::string file;   // relative to the report directory: plots/<metric>_vs_<x>.svg
  std::string title;
  std::string svg;
};
// One chart per (plot, metric): the metric against the plot's x, one series per combination of
// the other swept values ("s=2"). Numeric x gives a line chart, words a grouped bar chart.
std::vector<PlotFile> render_plots(const SweepResults& r);

// The whole report page: what ran, the verdicts, the plots, the table, rejected points with
// their reasons, failures with their messages.
std::string markdown_report(const SweepResults& r, const std::vector<PlotFile>& plots);

// A directory that is built under a temporary name beside its destination and renamed into place
// by commit(); destroyed uncommitted (an error, an interrupt), it is removed with its contents.
// Without a destination it is a scratch directory under the system temporary directory.
class StagingDir {
public:
  explicit StagingDir(const std::string& destination);
  ~StagingDir();
  StagingDir(const StagingDir&) = delete;
  StagingDir& operator=(const StagingDir&) = delete;

  const std::string& path() const { return path_; }
  // Replaces the destination: an existing directory is replaced only if it is empty or an earlier
  // sweep report (holds sweep.json), so a mistyped --report never deletes unrelated files. The
  // constructor checks this already (InputError), so a long run does not fail at the end.
  void commit();

private:
  void check_replaceable() const;
  std::string destination_, path_;
  bool committed_ = false;
};

// Writes sweep.json, sweep.csv, sweep.md and plots/*.svg of `r` into `dir`.
void write_report_files(const SweepResults& r, const std::string& dir);

}  // namespace flycol::sweep
