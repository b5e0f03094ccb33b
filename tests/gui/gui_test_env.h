// Where the gui-labelled tests can draw: a real X display (run them under xvfb-run), else Qt's offscreen
// platform. Tests skip, saying why, when neither is available. Single-threaded test code.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace nimble::gui::testing {

// True when a Qt window can be created here; sets QT_QPA_PLATFORM=offscreen when there is no display.
inline bool PrepareDisplay(std::string& why_not) {
  if (std::getenv("DISPLAY") != nullptr || std::getenv("QT_QPA_PLATFORM") != nullptr) return true;
  for (const char* dir : {"/usr/lib/x86_64-linux-gnu/qt6/plugins/platforms", "/usr/lib/qt6/plugins/platforms"}) {
    if (std::filesystem::exists(std::string(dir) + "/libqoffscreen.so")) {
      setenv("QT_QPA_PLATFORM", "offscreen", 1);
      return true;
    }
  }
  why_not = "no DISPLAY and no Qt offscreen platform plugin: run these tests under xvfb-run";
  return false;
}

}  // namespace nimble::gui::testing
