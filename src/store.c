/* stub: store.c - to be written */
