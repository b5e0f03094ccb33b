// nimble-prof-model: `nimble-prof profile` in the one executable that loads libtorch. nimble-prof
// checks the arguments and runs it; it can also be run directly with the same arguments.
#include "prof_app.h"
#include "profile_run.h"

int main(int argc, char** argv) { return nimble::cli::ProfMain(argc, argv, nimble::cli::RunProfileInProcess); }
