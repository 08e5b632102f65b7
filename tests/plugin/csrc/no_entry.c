/* A shared library that is not a plugin: no entry point. */
int mt_not_a_plugin(void) { return 42; }
