// nimble-prof: record, inspect and analyse GPU runs. Each subcommand lives in its own file; this
// executable does not load libtorch (`profile` runs in nimble-prof-model).
#include "prof_app.h"

int main(int argc, char** argv) { return nimble::cli::ProfMain(argc, argv, {}); }
