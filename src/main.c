/* fwin: windowed aggregation of record streams, with the semantics of
 * Apache Flink's event-time windows. See fwin(1). */
#include "cli/cli.h"

int
main(int argc, char **argv)
{
	return fwin_cli(argc, argv);
}
