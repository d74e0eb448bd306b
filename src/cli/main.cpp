#include "registry.hpp"

int main(int argc, char** argv) { return inferlint::cli::run(argc, argv); }
