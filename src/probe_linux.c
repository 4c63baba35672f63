/* stub: probe_linux.c - to be written */
