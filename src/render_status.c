/* stub: render_status.c - to be written */
