// The Catch2 main shared by every unit-test binary (compiled once into flycol_catch_main).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
