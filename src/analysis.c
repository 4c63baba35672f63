/* stub: analysis.c - to be written */
