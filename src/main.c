/* fwin: windowed aggregation of record streams, with the semantics of
 * Apache Flink's event-time windows. See fwin(1). */
#include "base/util.h"
#include "cli/cli.h"

int
main(int argc, char **argv)
{
	std_hold();
	gmp_use_xmalloc();
	return fwin_cli(argc, argv);
}
