/* stub: verdict.c - to be written */
