/* stub: csv.c - to be written */
