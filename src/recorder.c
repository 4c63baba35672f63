/* stub: recorder.c - to be written */
