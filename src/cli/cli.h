/* cli: the command line (see fwin(1)). */
#ifndef FWIN_CLI_H
#define FWIN_CLI_H

/* Runs fwin with these arguments; returns the exit status. Usage errors
 * exit with status 2. */
int fwin_cli(int argc, char **argv);

#endif
