/* stub: workload.c - to be written */
