/* stub: render_json.c - to be written */
