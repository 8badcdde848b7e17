// For executables with their own main() that link SystemC (the block libraries carry their
// SC_MODULE wrappers): libsystemc.so's main() refers to sc_main, which such programs never call.
extern "C" int sc_main(int, char*[]) { return 2; }
