/* stub: stats.c - to be written */
