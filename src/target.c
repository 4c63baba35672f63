/* stub: target.c - to be written */
