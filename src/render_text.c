/* stub: render_text.c - to be written */
