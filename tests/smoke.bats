#!/usr/bin/env bats
load common

@test "seed example: an event of 11s after one of 16s is late with -l 0" {
	printf '10 a\n12 b\n16 a\n11 a\n22 b\n' > in
	run --separate-stderr fwin -t 1 --tumble 5s --late-file late in
	assert_success
	assert_output $'10\t15\t2\n15\t20\t1\n20\t25\t1'
	assert_equal "$stderr" ""
	assert_equal "$(cat late)" "11 a"
}
