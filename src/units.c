/* stub: units.c - to be written */
