/*
 * layer_link.c - the program of the link wall (top meson.build,
 * "The link wall"): each layer's objects are linked whole into it with
 * only the layers that layer may use, so that a call to a layer it may
 * not use is an undefined symbol and the link fails. It calls nothing
 * and does nothing: building it is the check.
 */
int main(void)
{
	return 0;
}
