#!/usr/bin/env bats
# Calendar time (fwin(1): CALENDAR TIME, DURATIONS, WINDOWS): --tz, days
# that last 23 or 25 hours, months, quarters, years, Monday weeks, local
# times in a skipped or repeated hour, iso output with offsets, %z, and
# --cumulate. Every expected output below is derived by hand from fwin(1)
# and the zones' rules (Europe/Berlin: +01:00, +02:00 from the last Sunday
# of March to the last Sunday of October, 2026-03-29 and 2026-10-25;
# America/Los_Angeles: -08:00, -07:00 from 2026-03-08 to 2026-11-01;
# Australia/Sydney: +10:00, +11:00 until 2026-04-05 and from 2026-10-04).
load common

# ok ARGS...: run fwin, expect exit 0 and an empty stderr.
ok() {
	run --separate-stderr fwin "$@"
	assert_success
	assert_equal "$stderr" ""
}

# usage ARGS... MESSAGE: fwin ARGS exits 2 with "fwin: MESSAGE" and the hint.
usage() {
	local msg=${*: -1}
	run --separate-stderr fwin "${@:1:$#-1}" /dev/null
	assert_failure 2
	assert_output ""
	assert_equal "$stderr" "fwin: $msg
Try 'fwin --help' for more information."
}

# rows A B C ...: tab-separated rows of three cells.
rows() {
	printf '%s\t%s\t%s\n' "$@"
}

# ------------------------------------------------------------- days

@test "days in Europe/Berlin: 23 hours in March, 25 in October, from local midnight" {
	printf '%s\n' 2026-03-28T22:59:59Z 2026-03-28T23:00:00Z 2026-03-29T21:59:59Z \
		2026-03-29T22:00:00Z 2026-10-24T22:00:00Z 2026-10-25T22:59:59Z \
		2026-10-25T23:00:00Z > in
	ok -t 1 --tz Europe/Berlin --tumble 1d in
	assert_output "$(rows \
		2026-03-28T00:00:00+01:00 2026-03-29T00:00:00+01:00 1 \
		2026-03-29T00:00:00+01:00 2026-03-30T00:00:00+02:00 2 \
		2026-03-30T00:00:00+02:00 2026-03-31T00:00:00+02:00 1 \
		2026-10-25T00:00:00+02:00 2026-10-26T00:00:00+01:00 2 \
		2026-10-26T00:00:00+01:00 2026-10-27T00:00:00+01:00 1)"
	# the same bounds in seconds: 82800 s and 90000 s long
	ok -t 1 --tz Europe/Berlin --tumble 1d --output-time s in
	assert_output "$(rows \
		1774652400 1774738800 1 \
		1774738800 1774821600 2 \
		1774821600 1774908000 1 \
		1792879200 1792969200 2 \
		1792969200 1793055600 1)"
}

@test "days in America/Los_Angeles across both changes of 2026" {
	printf '%s\n' 2026-03-08T07:59:59Z 2026-03-08T08:00:00Z 2026-03-09T06:59:59Z \
		2026-11-01T07:00:00Z 2026-11-02T07:59:59Z > in
	ok -t 1 --tz America/Los_Angeles --tumble 1d in
	assert_output "$(rows \
		2026-03-07T00:00:00-08:00 2026-03-08T00:00:00-08:00 1 \
		2026-03-08T00:00:00-08:00 2026-03-09T00:00:00-07:00 2 \
		2026-11-01T00:00:00-07:00 2026-11-02T00:00:00-08:00 2)"
}

@test "days in Australia/Sydney: 25 hours in April, 23 in October" {
	# local times: 2026-04-05 00:00 +11:00 and 23:59 +10:00; 2026-10-04 12:00 +11:00
	printf '%s\n' 2026-04-04T13:00:00Z 2026-04-05T13:59:00Z 2026-10-04T01:00:00Z > in
	ok -t 1 --tz Australia/Sydney --tumble 1d in
	assert_output "$(rows \
		2026-04-05T00:00:00+11:00 2026-04-06T00:00:00+10:00 2 \
		2026-10-04T00:00:00+10:00 2026-10-05T00:00:00+11:00 1)"
	ok -t 1 --tz Australia/Sydney --tumble 1d --output-time s in
	# 1775307600 + 90000 = 1775397600; 1791036000 + 82800 = 1791118800
	assert_output "$(rows 1775307600 1775397600 2 1791036000 1791118800 1)"
}

@test "days in UTC are the fixed days they were; 2d counts from 1970-01-01" {
	printf '%s\n' -86401 -1 0 86399 172800 > in
	ok -t 1 --tumble 1d in
	expected=$(rows -172800 -86400 1 -86400 0 1 0 86400 2 172800 259200 1)
	assert_output "$expected"
	ok -t 1 --tumble 24h in
	assert_output "$expected"
	ok -t 1 --tumble 2d in
	assert_output "$(rows -172800 0 2 0 172800 2 172800 345600 1)"
}

@test "--offset shifts days from local midnight, DST or not" {
	# 06:00 local: 05:00Z in winter, 04:00Z in summer (from 01:00Z on
	# 2026-03-29): the day from 2026-03-28 06:00 lasts 23 hours
	printf '%s\n' 2026-03-29T03:59:59Z 2026-03-29T04:00:00Z 2026-03-30T03:59:59Z \
		2026-03-30T04:00:00Z > in
	ok -t 1 --tz Europe/Berlin --tumble 1d --offset 6h in
	assert_output "$(rows \
		2026-03-28T06:00:00+01:00 2026-03-29T06:00:00+02:00 1 \
		2026-03-29T06:00:00+02:00 2026-03-30T06:00:00+02:00 2 \
		2026-03-30T06:00:00+02:00 2026-03-31T06:00:00+02:00 1)"
}

@test "--slide 2d,1d in Europe/Berlin: windows of two local days, one starting each day" {
	printf '%s\n' 2026-03-28T12:00:00+01:00 2026-03-29T12:00:00+02:00 > in
	ok -t 1 --tz Europe/Berlin --slide 2d,1d in
	assert_output "$(rows \
		2026-03-27T00:00:00+01:00 2026-03-29T00:00:00+01:00 1 \
		2026-03-28T00:00:00+01:00 2026-03-30T00:00:00+02:00 2 \
		2026-03-29T00:00:00+01:00 2026-03-31T00:00:00+02:00 1)"
}

# ------------------------------------------------------------- weeks

@test "weeks start on Monday, before 1970 too; 2w counts from Monday 1969-12-29" {
	printf '%s\n' 1960-01-01T12:00:00Z 1969-12-31T23:59:59Z 1970-01-04T23:59:59Z \
		1970-01-05T00:00:00Z > in
	ok -t 1 --tumble 1w in
	assert_output "$(rows \
		1959-12-28T00:00:00Z 1960-01-04T00:00:00Z 1 \
		1969-12-29T00:00:00Z 1970-01-05T00:00:00Z 2 \
		1970-01-05T00:00:00Z 1970-01-12T00:00:00Z 1)"
	ok -t 1 --tumble 2w in
	assert_output "$(rows \
		1959-12-28T00:00:00Z 1960-01-11T00:00:00Z 1 \
		1969-12-29T00:00:00Z 1970-01-12T00:00:00Z 3)"
	# --offset -1d: weeks from Sunday
	ok -t 1 --tumble 1w --offset -1d in
	assert_output "$(rows \
		1959-12-27T00:00:00Z 1960-01-03T00:00:00Z 1 \
		1969-12-28T00:00:00Z 1970-01-04T00:00:00Z 1 \
		1970-01-04T00:00:00Z 1970-01-11T00:00:00Z 2)"
}

@test "a week in Europe/Berlin that springs forward lasts 167 hours" {
	printf '%s\n' 2026-03-23T00:00:00 2026-03-29T23:59:59 2026-03-30T00:00:00 > in
	ok -t 1 --tz Europe/Berlin --tumble 1w in
	assert_output "$(rows \
		2026-03-23T00:00:00+01:00 2026-03-30T00:00:00+02:00 2 \
		2026-03-30T00:00:00+02:00 2026-04-06T00:00:00+02:00 1)"
	ok -t 1 --tz Europe/Berlin --tumble 1w --output-time s in
	# 1774220400 + 7 * 86400 - 3600 = 1774821600
	assert_output "$(rows 1774220400 1774821600 2 1774821600 1775426400 1)"
}

@test "--slide 1w,1d: seven days, one starting each day" {
	printf '2026-01-07T12:00:00Z\n' > in
	ok -t 1 --slide 1w,1d in
	assert_output "$(for d in 01 02 03 04 05 06 07; do
		rows 2026-01-$d"T00:00:00Z" 2026-01-$((10#$d + 7))T00:00:00Z 1; done |
		sed 's/-\([0-9]\)T/-0\1T/g')"
}

# ------------------------------------------- months, quarters, years

@test "months last 28 to 31 days; February 2024 and 2000 are 29, 2100 28" {
	printf '%s\n' 2000-02-29T00:00:00Z 2024-02-29T12:00:00Z 2026-01-31T23:59:59Z \
		2026-02-01T00:00:00Z 2026-02-28T23:59:59Z 2026-04-30T12:00:00Z \
		2100-02-28T23:59:59Z > in
	ok -t 1 --tumble 1mo --output-time s in
	# 2026-01: 31 d (2678400 s), 02: 28 d, 04: 30 d; 2024-02 and 2000-02:
	# 29 d (2505600 s); 2100-02: 28 d (2419200 s)
	assert_output "$(rows \
		949363200 951868800 1 \
		1706745600 1709251200 1 \
		1767225600 1769904000 1 \
		1769904000 1772323200 2 \
		1775001600 1777593600 1 \
		4105123200 4107542400 1)"
	ok -t 1 --tumble 1mo --output-time iso in
	assert_output "$(rows \
		2000-02-01T00:00:00Z 2000-03-01T00:00:00Z 1 \
		2024-02-01T00:00:00Z 2024-03-01T00:00:00Z 1 \
		2026-01-01T00:00:00Z 2026-02-01T00:00:00Z 1 \
		2026-02-01T00:00:00Z 2026-03-01T00:00:00Z 2 \
		2026-04-01T00:00:00Z 2026-05-01T00:00:00Z 1 \
		2100-02-01T00:00:00Z 2100-03-01T00:00:00Z 1)"
}

@test "months in Europe/Berlin start at local midnight on the 1st" {
	printf '%s\n' 2026-02-28T23:30:00Z 2026-10-31T23:30:00Z > in
	ok -t 1 --tz Europe/Berlin --tumble 1mo in
	assert_output "$(rows \
		2026-03-01T00:00:00+01:00 2026-04-01T00:00:00+02:00 1 \
		2026-11-01T00:00:00+01:00 2026-12-01T00:00:00+01:00 1)"
}

@test "2mo counts from January 1970; before 1970 too" {
	printf '%s\n' 1969-12-15T00:00:00Z 1970-02-15T00:00:00Z 2026-12-31T00:00:00Z > in
	ok -t 1 --tumble 2mo in
	assert_output "$(rows \
		1969-11-01T00:00:00Z 1970-01-01T00:00:00Z 1 \
		1970-01-01T00:00:00Z 1970-03-01T00:00:00Z 1 \
		2026-11-01T00:00:00Z 2027-01-01T00:00:00Z 1)"
}

@test "quarters start in January, April, July and October; 1q is 3mo" {
	printf '%s\n' 2026-02-10T00:00:00Z 2026-03-31T23:59:59Z 2026-04-01T00:00:00Z \
		2026-08-01T00:00:00Z 2026-12-31T23:59:59Z > in
	expected=$(rows \
		2026-01-01T00:00:00Z 2026-04-01T00:00:00Z 2 \
		2026-04-01T00:00:00Z 2026-07-01T00:00:00Z 1 \
		2026-07-01T00:00:00Z 2026-10-01T00:00:00Z 1 \
		2026-10-01T00:00:00Z 2027-01-01T00:00:00Z 1)
	ok -t 1 --tumble 1q in
	assert_output "$expected"
	ok -t 1 --tumble 3mo in
	assert_output "$expected"
}

@test "years: 2024 has 366 days; --slide 1y,1q gives the year to each quarter's end" {
	printf '%s\n' 2024-12-31T23:59:59Z 2025-01-01T00:00:00Z > in
	ok -t 1 --tumble 1y --output-time s in
	# 1704067200 + 366 * 86400 = 1735689600, + 365 * 86400 = 1767225600
	assert_output "$(rows 1704067200 1735689600 1 1735689600 1767225600 1)"
	printf '2026-05-05T00:00:00Z\n' > in
	ok -t 1 --slide 1y,1q in
	assert_output "$(rows \
		2025-07-01T00:00:00Z 2026-07-01T00:00:00Z 1 \
		2025-10-01T00:00:00Z 2026-10-01T00:00:00Z 1 \
		2026-01-01T00:00:00Z 2027-01-01T00:00:00Z 1 \
		2026-04-01T00:00:00Z 2027-04-01T00:00:00Z 1)"
}

@test "a year in Europe/Berlin, by key, with a sum" {
	printf '%s\n' '2025-12-31T23:30:00Z a 1' '2026-06-01T00:00:00Z b 2' \
		'2026-12-31T22:59:59Z a 3' '2026-12-31T23:00:00Z a 4' > in
	ok -t 1 -k 2 --tz Europe/Berlin --tumble 1y --sum 3 in
	assert_output "$(printf '%s\t%s\t%s\t%s\n' \
		2026-01-01T00:00:00+01:00 2027-01-01T00:00:00+01:00 a 4 \
		2026-01-01T00:00:00+01:00 2027-01-01T00:00:00+01:00 b 2 \
		2027-01-01T00:00:00+01:00 2028-01-01T00:00:00+01:00 a 4)"
}

# ------------------------------------------------- parsing and output

@test "local times: a skipped hour and a repeated hour take the earlier offset" {
	# rolling mode prints each record's time
	printf '%s\n' 2026-03-29T01:59:59 2026-03-29T02:30:00 2026-03-29T03:00:00 \
		2026-10-25T01:30:00 2026-10-25T02:30:00 2026-10-25T03:00:00 > in
	ok --mode stream -t 1 --tz Europe/Berlin --output-time iso in
	assert_output "$(rows \
		2026-03-29T01:59:59+01:00 1 x 2026-03-29T03:30:00+02:00 2 x \
		2026-03-29T03:00:00+02:00 3 x 2026-10-25T01:30:00+02:00 4 x \
		2026-10-25T02:30:00+02:00 5 x 2026-10-25T03:00:00+01:00 6 x | cut -f1,2)"
	ok --mode stream -t 1 --tz Europe/Berlin --output-time s in
	assert_output $'1774745999\t1\n1774747800\t2\n1774746000\t3\n1792884600\t4\n1792888200\t5\n1792893600\t6'
}

@test "iso input without an offset is in --tz; with an offset or Z it is that instant" {
	printf '%s\n' 2026-01-15T12:00:00 2026-01-15T12:00:00Z 2026-01-15T12:00:00-05:00 > in
	ok -t 1 --tz Asia/Tokyo --output-time s in
	assert_output $'1768446000\t1\n1768478400\t2\n1768496400\t3'
	ok -t 1 --output-time s in
	assert_output $'1768478400\t1\n1768478400\t2\n1768496400\t3'
}

@test "strptime without %z reads local time; %z is honoured whatever --tz says" {
	# -d '|': one field per line, blanks and all
	printf '%s\n' '15/01/2026 12:00' '15/07/2026 12:00' > in
	ok -d '|' -t 1 --time-format '%d/%m/%Y %H:%M' --tz Europe/Berlin --output-time s in
	assert_output $'1768474800\t1\n1784109600\t2'
	printf '%s\n' '[29/Nov/2026:20:37:03 -0700]' '[29/Nov/2026:20:37:03 +0000]' > in
	for tz in UTC Europe/Berlin America/Los_Angeles; do
		ok --mode stream -d '|' -t 1 --time-format '[%d/%b/%Y:%H:%M:%S %z]' --tz $tz --output-time s in
		assert_output $'1796009823\t1\n1795984623\t2'
	done
}

@test "strptime %Z: UTC and GMT are offset 0, the zone's abbreviations their offset, others bad" {
	# date(1)'s own format; 12:00 UTC is not 12:00 in Berlin
	printf '%s\n' 'Wed Jul  1 12:00:00 UTC 2026' 'Wed Jul  1 14:00:00 CEST 2026' \
		'Wed Jul  1 12:00:00 GMT 2026' > in
	ok -d '|' -t 1 --time-format '%a %b %e %H:%M:%S %Z %Y' --tz Europe/Berlin --tumble 1s --output-time s in
	assert_output $'1782907200\t1782907201\t3'
	# the name tells the two 01:30 of the night the clocks fall back apart
	printf '%s\n' '2026-11-01 01:30 PDT' '2026-11-01 01:30 PST' > in
	ok -d '|' -t 1 --time-format '%Y-%m-%d %H:%M %Z' --tz America/Los_Angeles --output-time s in
	assert_output $'1793521800\t1\n1793525400\t2'
	# a name the zone never uses is bad, never read as local time
	printf '%s\n' '2026-07-01 12:00 CET' '2026-07-01 12:00 UTC' > in
	run --separate-stderr fwin -d '|' -t 1 --time-format '%Y-%m-%d %H:%M %Z' --tz America/Los_Angeles --output-time s in
	assert_success
	assert_output $'1782907200\t1'
	assert_equal "$stderr" $'fwin: in:1: field 1: time zone name (%Z) is not UTC, GMT or one the --tz zone uses "2026-07-01 12:00 CET"; record skipped\nfwin: 1 bad record skipped'
}

@test "strptime %Z: a name the zone uses at another time of year has its own offset, as Flink's z reads it" {
	# EST in July is 12:00-05:00, EDT in January 12:00-04:00; each name
	# in its own season as before
	printf '%s\n' '2026-07-01 12:00 EST' '2026-07-01 12:00 EDT' \
		'2026-01-15 12:00 EDT' '2026-01-15 12:00 EST' > in
	ok -d '|' -t 1 --time-format '%Y-%m-%d %H:%M %Z' --tz America/New_York --tumble 1s --output-time s in
	assert_output "$(rows 1768492800 1768492801 1 1768496400 1768496401 1 \
		1782921600 1782921601 1 1782925200 1782925201 1)"
	# and in the hour the clocks skip: 02:30 EST is 07:30 UTC
	printf '2026-03-08 02:30 EST\n' > in
	ok -d '|' -t 1 --time-format '%Y-%m-%d %H:%M %Z' --tz America/New_York --output-time iso in
	assert_output $'2026-03-08T03:30:00-04:00\t1'
	# a POSIX rule's names: its standard and its daylight offset
	printf '2026-07-01 12:00 CET\n2026-01-15 12:00 CEST\n' > in
	TZ='CET-1CEST,M3.5.0,M10.5.0/3' ok -d '|' -t 1 --time-format '%Y-%m-%d %H:%M %Z' --tz local --tumble 1s --output-time s in
	assert_output "$(rows 1768471200 1768471201 1 1782903600 1782903601 1)"
}

@test "iso output: local time with its offset; UTC keeps Z; fractions too" {
	printf '%s\n' 2026-03-08T07:59:59.5Z 2026-03-08T10:00:00Z > in
	ok -t 1 --tz America/Los_Angeles --tumble 1h in
	assert_output "$(rows \
		2026-03-07T23:00:00-08:00 2026-03-08T00:00:00-08:00 1 \
		2026-03-08T03:00:00-07:00 2026-03-08T04:00:00-07:00 1)"
	ok -t 1 --tz America/Los_Angeles --output-time iso in
	assert_output $'2026-03-07T23:59:59.500-08:00\t1\n2026-03-08T03:00:00-07:00\t2'
	ok -t 1 --tz UTC --output-time iso in
	assert_output $'2026-03-08T07:59:59.500Z\t1\n2026-03-08T10:00:00Z\t2'
}

@test "iso output of a local mean time has offset seconds, and fwin reads them back" {
	# Amsterdam kept +00:19:32 until 1937: its minutes start at :32 UTC
	printf '%s\n' 1906-08-16T20:46:12+00:19:32 1906-08-16T20:07:08-00:19:32 > in
	ok -t 1 --tz Europe/Amsterdam --tumble 1m in
	assert_output "$(rows 1906-08-16T20:45:32+00:19:32 1906-08-16T20:46:32+00:19:32 2)"
	cut -f1 <<<"$output" > again
	ok -t 1 --tz Europe/Amsterdam --tumble 1m --output-time s again
	assert_output $'-2000000040\t-1999999980\t1'
}

@test "--tz local is the TZ environment variable" {
	printf '2026-07-01T12:00:00Z\n' > in
	TZ=America/Los_Angeles run --separate-stderr "$FWIN" -t 1 --tz local --tumble 1d in
	assert_success
	assert_output "$(rows 2026-07-01T00:00:00-07:00 2026-07-02T00:00:00-07:00 1)"
}

# The POSIX rules below: Berlin's, New York's, Los Angeles', Auckland's;
# Jerusalem's, which springs forward at 26:00 of a Thursday (02:00 of the
# Friday), and Nuuk's, which does at -1:00 of a Sunday (23:00 of the
# Saturday). The instants of their changes in 2026 are Python's zoneinfo's.
TZ_RULES=('CET-1CEST,M3.5.0,M10.5.0/3' 'EST5EDT,M3.2.0/2,M11.1.0'
	'PST8PDT,M3.2.0/2,M11.1.0/2' 'NZST-12NZDT,M9.5.0,M4.1.0/3'
	'IST-2IDT,M3.4.4/26,M10.5.0' '<-02>2<-01>,M3.5.0/-1,M10.5.0/0')

@test "--tz local: a POSIX rule in TZ, its changes at a time of day" {
	printf '1780000000\n' > in
	for tz in "${TZ_RULES[@]:0:4}"; do
		TZ=$tz ok -t 1 --tumble 1d --tz local --output-time iso in
		printf '%s\n' "$output" >> out
	done
	assert_equal "$(cat out)" "$(rows \
		2026-05-28T00:00:00+02:00 2026-05-29T00:00:00+02:00 1 \
		2026-05-28T00:00:00-04:00 2026-05-29T00:00:00-04:00 1 \
		2026-05-28T00:00:00-07:00 2026-05-29T00:00:00-07:00 1 \
		2026-05-29T00:00:00+12:00 2026-05-30T00:00:00+12:00 1)"
	# ':' before a rule, as glibc reads it: the rule
	TZ=:${TZ_RULES[0]} ok -t 1 --tumble 1d --tz local --output-time iso in
	assert_output "$(rows 2026-05-28T00:00:00+02:00 2026-05-29T00:00:00+02:00 1)"
}

@test "--tz local: a POSIX rule's changes, to the second, and its days" {
	local r
	# each rule's two changes, the second before each and the second of it
	printf '%s\n' 1774746000 1792890000 1772953200 1793512800 1772964000 \
		1793523600 1775311200 1790431200 1774569600 1792882800 \
		1774746000 1792890000 |
	    awk '{ print $1 - 1 > ("in" int((NR - 1) / 2)); print > ("in" int((NR - 1) / 2)) }'
	for r in 0 1 2 3 4 5; do
		TZ=${TZ_RULES[r]} ok -t 1 --tumble 1s --tz local --output-time iso in$r
		printf '%s\n' "$output" >> secs
		TZ=${TZ_RULES[r]} ok -t 1 --tumble 1d --tz local --output-time iso in$r
		printf '%s\n' "$output" >> days
	done
	assert_equal "$(cat secs)" "$(rows \
		2026-03-29T01:59:59+01:00 2026-03-29T03:00:00+02:00 1 \
		2026-03-29T03:00:00+02:00 2026-03-29T03:00:01+02:00 1 \
		2026-10-25T02:59:59+02:00 2026-10-25T02:00:00+01:00 1 \
		2026-10-25T02:00:00+01:00 2026-10-25T02:00:01+01:00 1 \
		2026-03-08T01:59:59-05:00 2026-03-08T03:00:00-04:00 1 \
		2026-03-08T03:00:00-04:00 2026-03-08T03:00:01-04:00 1 \
		2026-11-01T01:59:59-04:00 2026-11-01T01:00:00-05:00 1 \
		2026-11-01T01:00:00-05:00 2026-11-01T01:00:01-05:00 1 \
		2026-03-08T01:59:59-08:00 2026-03-08T03:00:00-07:00 1 \
		2026-03-08T03:00:00-07:00 2026-03-08T03:00:01-07:00 1 \
		2026-11-01T01:59:59-07:00 2026-11-01T01:00:00-08:00 1 \
		2026-11-01T01:00:00-08:00 2026-11-01T01:00:01-08:00 1 \
		2026-04-05T02:59:59+13:00 2026-04-05T02:00:00+12:00 1 \
		2026-04-05T02:00:00+12:00 2026-04-05T02:00:01+12:00 1 \
		2026-09-27T01:59:59+12:00 2026-09-27T03:00:00+13:00 1 \
		2026-09-27T03:00:00+13:00 2026-09-27T03:00:01+13:00 1 \
		2026-03-27T01:59:59+02:00 2026-03-27T03:00:00+03:00 1 \
		2026-03-27T03:00:00+03:00 2026-03-27T03:00:01+03:00 1 \
		2026-10-25T01:59:59+03:00 2026-10-25T01:00:00+02:00 1 \
		2026-10-25T01:00:00+02:00 2026-10-25T01:00:01+02:00 1 \
		2026-03-28T22:59:59-02:00 2026-03-29T00:00:00-01:00 1 \
		2026-03-29T00:00:00-01:00 2026-03-29T00:00:01-01:00 1 \
		2026-10-24T23:59:59-01:00 2026-10-24T23:00:00-02:00 1 \
		2026-10-24T23:00:00-02:00 2026-10-24T23:00:01-02:00 1)"
	# days of 23 and 25 hours; Nuuk's skipped hour is the last of a day
	assert_equal "$(cat days)" "$(rows \
		2026-03-29T00:00:00+01:00 2026-03-30T00:00:00+02:00 2 \
		2026-10-25T00:00:00+02:00 2026-10-26T00:00:00+01:00 2 \
		2026-03-08T00:00:00-05:00 2026-03-09T00:00:00-04:00 2 \
		2026-11-01T00:00:00-04:00 2026-11-02T00:00:00-05:00 2 \
		2026-03-08T00:00:00-08:00 2026-03-09T00:00:00-07:00 2 \
		2026-11-01T00:00:00-07:00 2026-11-02T00:00:00-08:00 2 \
		2026-04-05T00:00:00+13:00 2026-04-06T00:00:00+12:00 2 \
		2026-09-27T00:00:00+12:00 2026-09-28T00:00:00+13:00 2 \
		2026-03-27T00:00:00+02:00 2026-03-28T00:00:00+03:00 2 \
		2026-10-25T00:00:00+03:00 2026-10-26T00:00:00+02:00 2 \
		2026-03-28T00:00:00-02:00 2026-03-29T00:00:00-01:00 1 \
		2026-03-29T00:00:00-01:00 2026-03-30T00:00:00-01:00 1 \
		2026-10-24T00:00:00-01:00 2026-10-25T00:00:00-02:00 2)"
}

@test "--tz local: a POSIX rule's offsets through a year, every 1201 seconds" {
	local tz
	seq 1767225600 1201 1798761599 > in
	for tz in "${TZ_RULES[@]}"; do
		TZ=$tz ok -t 1 --tumble 1s --tz local --output-time iso in
		# the first time of each offset
		awk -F '\t' '{ o = substr($1, 20) } o != p { print $1 } { p = o }' \
		    <<< "$output" >> firsts
	done
	assert_equal "$(cat firsts)" "2026-01-01T01:00:00+01:00
2026-03-29T03:04:22+02:00
2026-10-25T02:16:10+01:00
2025-12-31T19:00:00-05:00
2026-03-08T03:19:30-04:00
2026-11-01T01:04:48-05:00
2025-12-31T16:00:00-08:00
2026-03-08T03:19:39-07:00
2026-11-01T01:04:57-08:00
2026-01-01T13:00:00+13:00
2026-04-05T02:12:13+12:00
2026-09-27T03:02:02+13:00
2026-01-01T02:00:00+02:00
2026-03-27T03:01:55+03:00
2026-10-25T01:16:04+02:00
2025-12-31T22:00:00-02:00
2026-03-29T00:04:22-01:00
2026-10-24T23:16:10-02:00"
}

@test "--tz local: a POSIX rule whose summer is shorter than a day, both changes in one UTC day" {
	# summer from 02:00 (UTC) to 20:00 summer time (19:00 UTC) of day 100
	printf '%s\n' 1775786399 1775786400 1775822400 1775847599 1775847600 > in
	TZ='XST0XDT-1,J100/2,J100/20' ok -t 1 --tumble 1s --tz local --output-time iso in
	assert_output "$(rows \
		2026-04-10T01:59:59+00:00 2026-04-10T03:00:00+01:00 1 \
		2026-04-10T03:00:00+01:00 2026-04-10T03:00:01+01:00 1 \
		2026-04-10T13:00:00+01:00 2026-04-10T13:00:01+01:00 1 \
		2026-04-10T19:59:59+01:00 2026-04-10T19:00:00+00:00 1 \
		2026-04-10T19:00:00+00:00 2026-04-10T19:00:01+00:00 1)"
	# local times: in summer, and the repeated hour's first (summer) time
	printf '2026-04-10 12:00:00\n2026-04-10 19:30:00\n' > loc
	TZ='XST0XDT-1,J100/2,J100/20' ok -d , -t 1 --tumble 1s --tz local --output-time s loc
	assert_output "$(rows 1775818800 1775818801 1 1775845800 1775845801 1)"
}

@test "--tz: an unknown zone is a usage error" {
	usage --tz Mars/Olympus "--tz: unknown time zone 'Mars/Olympus' (an IANA name such as Europe/Berlin, UTC or local)"
	usage --tz ../../etc/passwd "--tz: unknown time zone '../../etc/passwd' (an IANA name such as Europe/Berlin, UTC or local)"
}

@test "--tz local: a TZ that names no known zone is named, not 'local'" {
	TZ=Foo/Bar usage -t 1 --tumble 1d --tz local "--tz local: the TZ environment variable names no known time zone 'Foo/Bar' (an IANA name such as Europe/Berlin, or a POSIX rule)"
	TZ=:Mars usage -t 1 --tz local "--tz local: the TZ environment variable names no known time zone ':Mars' (an IANA name such as Europe/Berlin, or a POSIX rule)"
	# a rule is checked whole: a month 13, an hour of change past 167
	TZ='CET-1CEST,M13.5.0,M10.5.0' usage -t 1 --tz local "--tz local: the TZ environment variable names no known time zone 'CET-1CEST,M13.5.0,M10.5.0' (an IANA name such as Europe/Berlin, or a POSIX rule)"
	TZ='CET-1CEST,M13.5.0,M10.5.0/3' usage -t 1 --tz local "--tz local: the TZ environment variable names no known time zone 'CET-1CEST,M13.5.0,M10.5.0/3' (an IANA name such as Europe/Berlin, or a POSIX rule)"
	TZ='CET-1CEST,M3.5.0,M10.5.0/168' usage -t 1 --tz local "--tz local: the TZ environment variable names no known time zone 'CET-1CEST,M3.5.0,M10.5.0/168' (an IANA name such as Europe/Berlin, or a POSIX rule)"
	TZ='Europe/Berlin/3' usage -t 1 --tz local "--tz local: the TZ environment variable names no known time zone 'Europe/Berlin/3' (an IANA name such as Europe/Berlin, or a POSIX rule)"
}

# ---------------------------------------------------- usage errors

@test "calendar units: where they are taken, and how sizes and steps combine" {
	usage --tumble 1mo --offset 1h "--offset cannot shift mo, q or y windows (they start at midnight on the 1st)"
	usage --offset=-1h --cumulate 1y,1q "--offset cannot shift mo, q or y windows (they start at midnight on the 1st)"
	usage --tumble 1.5mo "--tumble: bad duration '1.5mo' (units: ns us ms s m h d w mo q y)"
	usage --tumble 1mo1d "--tumble: bad duration '1mo1d' (units: ns us ms s m h d w mo q y)"
	usage --tumble 0mo "--tumble: '0mo' must be greater than zero"
	usage --tumble 9999999y "--tumble: '9999999y' is too large"
	usage --session 1mo "--session: '1mo': mo, q and y are only for window sizes and steps (units here: ns us ms s m h d w)"
	usage -l 1q "--lateness: '1q': mo, q and y are only for window sizes and steps (units here: ns us ms s m h d w)"
	usage --allowed-lateness 1y "--allowed-lateness: '1y': mo, q and y are only for window sizes and steps (units here: ns us ms s m h d w)"
	usage --idle-timeout 1mo "--idle-timeout: '1mo': mo, q and y are only for window sizes and steps (units here: ns us ms s m h d w)"
	usage --session 1x "--session: bad duration '1x' (units: ns us ms s m h d w)"
	usage --slide 1d,1h "--slide: '1d,1h': SIZE and STEP must both be fixed durations, both days or weeks (d, w), or both months (mo, q, y); a fixed day is 24h"
	usage --slide 1mo,1w "--slide: '1mo,1w': SIZE and STEP must both be fixed durations, both days or weeks (d, w), or both months (mo, q, y); a fixed day is 24h"
	usage --slide 1w,3d "--slide: '1w,3d': STEP must divide SIZE"
	usage --slide 1y,5mo "--slide: '1y,5mo': STEP must divide SIZE"
	usage --cumulate 1mo,1w "--cumulate: '1mo,1w': STEP must be of SIZE's family (fixed; d, w; mo, q, y), 1d with months, or fixed with a calendar SIZE"
	usage --cumulate 1q,2d "--cumulate: '1q,2d': STEP must be of SIZE's family (fixed; d, w; mo, q, y), 1d with months, or fixed with a calendar SIZE"
	usage --cumulate 1h,1d "--cumulate: '1h,1d': STEP must be of SIZE's family (fixed; d, w; mo, q, y), 1d with months, or fixed with a calendar SIZE"
	usage --cumulate 10m,3m "--cumulate: '10m,3m': STEP must divide SIZE"
	usage --cumulate 10m "--cumulate: '10m' is not SIZE,STEP"
	usage --cumulate 10m,2m --tumble 1m "--cumulate and --tumble cannot be used together"
}

@test "d and w stay exact durations in -l and --session" {
	# a session gap of 1d is 24 hours, also across the change to summer time
	printf '%s\n' 2026-03-28T12:00:00Z 2026-03-29T11:59:59Z 2026-03-30T12:00:00Z > in
	ok -t 1 --tz Europe/Berlin --session 1d --output-time s in
	assert_output "$(rows 1774699200 1774871999 2 1774872000 1774958400 1)"
}

# ---------------------------------------------------------- cumulate

@test "--cumulate: Flink SQL's CUMULATE example (Bid table, 2-minute step, 10-minute size)" {
	printf '%s\n' 'bidtime,price,item' '2020-04-15 08:05,4.00,C' '2020-04-15 08:07,2.00,A' \
		'2020-04-15 08:09,5.00,D' '2020-04-15 08:11,3.00,B' '2020-04-15 08:13,1.00,E' \
		'2020-04-15 08:17,6.00,F' > bid.csv
	# [08:00,08:02) and [08:00,08:04) hold no bid: they never fire; the
	# others hold the bids before their end: 4, 4+2, 4+2+5; 3, 3+1, 3+1,
	# 3+1+6, 3+1+6
	ok --csv -H -t bidtime --time-format '%Y-%m-%d %H:%M' --cumulate 10m,2m --sum price bid.csv
	assert_output 'window_start,window_end,sum_price
2020-04-15T08:00:00Z,2020-04-15T08:06:00Z,4
2020-04-15T08:00:00Z,2020-04-15T08:08:00Z,6
2020-04-15T08:00:00Z,2020-04-15T08:10:00Z,11
2020-04-15T08:10:00Z,2020-04-15T08:12:00Z,3
2020-04-15T08:10:00Z,2020-04-15T08:14:00Z,4
2020-04-15T08:10:00Z,2020-04-15T08:16:00Z,4
2020-04-15T08:10:00Z,2020-04-15T08:18:00Z,10
2020-04-15T08:10:00Z,2020-04-15T08:20:00Z,10'
}

@test "--cumulate: by key, each window fires when the watermark passes its end" {
	printf '%s\n' '1 a' '3 b' '4 a' '9 a' '12 b' > in
	ok -t 1 -k 2 --cumulate 10s,5s in
	assert_output "$(printf '%s\t%s\t%s\t%s\n' 0 5 a 2 0 5 b 1 0 10 a 3 0 10 b 1 \
		10 15 b 1 10 20 b 1)"
	# 4 comes after [0,5) fired: it is in [0,10) only; 3 comes after the
	# watermark passed 10, the end of its last window: it is late
	printf '%s\n' 1 7 4 13 3 > in
	ok -t 1 --cumulate 10s,5s -l 2s --late-file late in
	assert_output "$(rows 0 5 1 0 10 3 10 15 1 10 20 1)"
	assert_equal "$(cat late)" "3"
}

@test "--cumulate with --allowed-lateness: a late record fires its fired windows again" {
	# 3 comes at W = 12: [0,5) and [0,10) fired, but are kept 10s more;
	# 7 comes at W = 26: both have expired, it is late
	printf '%s\n' 1 12 3 26 7 > in
	ok -t 1 --cumulate 10s,5s --allowed-lateness 10s --late-file late in
	assert_output "$(rows 0 5 1 0 10 1 0 5 2 0 10 2 10 15 1 10 20 1 20 30 1)"
	assert_equal "$(cat late)" "7"
}

@test "--cumulate 4s,1s: windows of many panes, re-fired whole, with and without kept prefixes" {
	# 2 comes at W = 5, after [0,1) to [0,4) fired: [0,3) and [0,4) fire
	# again. Count, min, max, first, last fold the whole window [0,4)
	# from the prefixes its earlier windows kept; so do exact sums and
	# averages (an inexact one folds from its end back, as it always
	# has): the rows are the same.
	printf '%s\n' '0 5' '1 3' '2 9' '3 1' '5 2' '2 4' '9 6' > in
	ok -t 1 --cumulate 4s,1s --allowed-lateness 10s --count --min 2 --max 2 \
		--first 2 --last 2 in
	assert_output "$(printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
		0 1 1 5 5 5 5  0 2 2 3 5 5 3  0 3 3 3 9 5 9  0 4 4 1 9 5 1 \
		0 3 4 3 9 5 4  0 4 5 1 9 5 4 \
		4 6 1 2 2 2 2  4 7 1 2 2 2 2  4 8 1 2 2 2 2 \
		8 10 1 6 6 6 6  8 11 1 6 6 6 6  8 12 1 6 6 6 6)"
	ok -t 1 --cumulate 4s,1s --allowed-lateness 10s --count --sum 2 --avg 2 in
	assert_output "$(printf '%s\t%s\t%s\t%s\t%s\n' \
		0 1 1 5 5  0 2 2 8 4  0 3 3 17 5.666666666666667  0 4 4 18 4.5 \
		0 3 4 21 5.25  0 4 5 22 4.4 \
		4 6 1 2 2  4 7 1 2 2  4 8 1 2 2 \
		8 10 1 6 6  8 11 1 6 6  8 12 1 6 6)"
}

@test "--cumulate: sums folded from kept prefixes while exact are the sums folded the old way, exact or not" {
	# --stddev folds in one grouping only, so with it every window folds
	# from its end back; the sums must not tell the difference, with
	# plain decimals only and with values in exponent form (folded as
	# floats, whose bytes depend on the grouping) among them
	for mix in 0 3; do
		draws 4000 3 7 | awk -v mix=$mix '{
			v = sprintf("%.2f", $1 * 100)
			if (int($2 * 10) < mix) v = sprintf("%.3e", $1 * 100)
			printf "%d,k%d,%s\n", (NR - 1) * 3, int($3 * 3), v }' > in
		ok --csv -t 1 -k 2 --cumulate 1h,10m --sum 3 --avg 3 in
		printf '%s\n' "$output" > fast
		ok --csv -t 1 -k 2 --cumulate 1h,10m --sum 3 --avg 3 --stddev 3 in
		printf '%s\n' "$output" | cut -d, -f1-5 > slow
		[ "$(wc -l < fast)" -gt 30 ]
		cmp fast slow
	done
	# the mixed file has sums that are not exact
	grep -q 'e' in
}

@test "Pacific/Apia skipped 2011-12-30: its empty day never fires; a week cumulates over it once" {
	# 2011-12-29T23:59:59-10:00 was followed by 2011-12-31T00:00:00+14:00:
	# the day 2011-12-30 holds no time (1325239200 is both its midnights)
	printf '%s\n' 2011-12-29T12:00:00 2011-12-31T12:00:00 > in
	ok -t 1 --tz Pacific/Apia --tumble 1d in
	assert_output "$(rows \
		2011-12-29T00:00:00-10:00 2011-12-31T00:00:00+14:00 1 \
		2011-12-31T00:00:00+14:00 2012-01-01T00:00:00+14:00 1)"
	ok -t 1 --tz Pacific/Apia --tumble 1d --fill in
	assert_output "$(rows \
		2011-12-29T00:00:00-10:00 2011-12-31T00:00:00+14:00 1 \
		2011-12-31T00:00:00+14:00 2012-01-01T00:00:00+14:00 1)"
	# the week from Monday 2011-12-26: the steps ending on the 30th and the
	# 31st end at one instant, one window
	ok -t 1 --tz Pacific/Apia --cumulate 1w,1d --output-time s in
	assert_output "$(rows 1324893600 1325239200 1 1324893600 1325325600 2 \
		1324893600 1325412000 2)"
}

@test "--cumulate 1d,1h: a 25-hour day in Europe/Berlin has 25 windows" {
	printf '%s\n' 2026-10-25T00:30:00 2026-10-25T23:30:00 > in
	ok -t 1 --tz Europe/Berlin --cumulate 1d,1h --output-time s in
	# the day starts at 1792879200 (00:00 +02:00); window k ends k hours later
	expected=$(for k in $(seq 1 25); do rows 1792879200 $((1792879200 + k * 3600)) $((k < 25 ? 1 : 2)); done)
	assert_output "$expected"
	ok -t 1 --tz Europe/Berlin --cumulate 1d,1h in
	assert_line --index 0 "$(rows 2026-10-25T00:00:00+02:00 2026-10-25T01:00:00+02:00 1)"
	assert_line --index 1 "$(rows 2026-10-25T00:00:00+02:00 2026-10-25T02:00:00+02:00 1)"
	assert_line --index 2 "$(rows 2026-10-25T00:00:00+02:00 2026-10-25T02:00:00+01:00 1)"
	assert_line --index 24 "$(rows 2026-10-25T00:00:00+02:00 2026-10-26T00:00:00+01:00 2)"
}

@test "--cumulate 1w,1d and 1y,1q cumulate on the calendar" {
	printf '%s\n' 2026-03-24T12:00:00Z 2026-03-26T12:00:00Z > in
	ok -t 1 --tz Europe/Berlin --cumulate 1w,1d in
	assert_output "$(rows \
		2026-03-23T00:00:00+01:00 2026-03-25T00:00:00+01:00 1 \
		2026-03-23T00:00:00+01:00 2026-03-26T00:00:00+01:00 1 \
		2026-03-23T00:00:00+01:00 2026-03-27T00:00:00+01:00 2 \
		2026-03-23T00:00:00+01:00 2026-03-28T00:00:00+01:00 2 \
		2026-03-23T00:00:00+01:00 2026-03-29T00:00:00+01:00 2 \
		2026-03-23T00:00:00+01:00 2026-03-30T00:00:00+02:00 2)"
	printf '%s\n' '2026-02-01T00:00:00Z 5' '2026-08-01T00:00:00Z 7' > in
	ok -t 1 --cumulate 1y,1q --sum 2 in
	assert_output "$(rows \
		2026-01-01T00:00:00Z 2026-04-01T00:00:00Z 5 \
		2026-01-01T00:00:00Z 2026-07-01T00:00:00Z 5 \
		2026-01-01T00:00:00Z 2026-10-01T00:00:00Z 12 \
		2026-01-01T00:00:00Z 2027-01-01T00:00:00Z 12)"
}

@test "--cumulate 1mo,168h: fixed steps from the 1st, the last one cut at the month's end" {
	printf '%s\n' 2026-02-01T00:00:00Z 2026-02-27T00:00:00Z > in
	ok -t 1 --cumulate 1mo,168h in
	# February 2026 has 28 days: four steps of 7 days fill it
	assert_output "$(rows \
		2026-02-01T00:00:00Z 2026-02-08T00:00:00Z 1 \
		2026-02-01T00:00:00Z 2026-02-15T00:00:00Z 1 \
		2026-02-01T00:00:00Z 2026-02-22T00:00:00Z 1 \
		2026-02-01T00:00:00Z 2026-03-01T00:00:00Z 2)"
	printf '%s\n' 2026-03-01T00:00:00Z 2026-03-30T00:00:00Z > in
	ok -t 1 --cumulate 1mo,168h in
	assert_output "$(rows \
		2026-03-01T00:00:00Z 2026-03-08T00:00:00Z 1 \
		2026-03-01T00:00:00Z 2026-03-15T00:00:00Z 1 \
		2026-03-01T00:00:00Z 2026-03-22T00:00:00Z 1 \
		2026-03-01T00:00:00Z 2026-03-29T00:00:00Z 1 \
		2026-03-01T00:00:00Z 2026-04-01T00:00:00Z 2)"
}

@test "--cumulate with a checkpoint: a run stopped mid-window and its restore give one run's rows" {
	printf '%s\n' '2020-04-15 08:05,4' '2020-04-15 08:07,2' '2020-04-15 08:09,5' \
		'2020-04-15 08:11,3' > in.csv
	args=(--csv -t 1 --time-format '%Y-%m-%d %H:%M' --cumulate 10m,2m --sum 2 --output-time s)
	ok "${args[@]}" --state s.ckpt -o out.csv in.csv
	# the watermark is 08:11: the windows up to 08:10 fired, [08:10,08:12) is open
	assert_equal "$(cat out.csv)" $'1586937600,1586937960,4\n1586937600,1586938080,6\n1586937600,1586938200,11'
	printf '%s\n' '2020-04-15 08:13,1' '2020-04-15 08:17,6' >> in.csv
	ok "${args[@]}" --state s.ckpt -o out.csv in.csv
	ok "${args[@]}" --state s.ckpt -o out.csv --flush in.csv
	ok "${args[@]}" -o whole.csv in.csv
	assert_equal "$(cat out.csv)" "$(cat whole.csv)"
	assert_equal "$(cat whole.csv)" $'1586937600,1586937960,4\n1586937600,1586938080,6\n1586937600,1586938200,11\n1586938200,1586938320,3\n1586938200,1586938440,4\n1586938200,1586938560,4\n1586938200,1586938680,10\n1586938200,1586938800,10'
}

@test "the zone and the calendar are part of the pipeline's fingerprint" {
	printf '2026-03-29T12:00:00Z\n' > in
	ok -t 1 --tz Europe/Berlin --tumble 1d --state s.ckpt in
	run --separate-stderr fwin -t 1 --tumble 1d --state s.ckpt in
	assert_failure 2
	assert_equal "$stderr" "fwin: s.ckpt was made with --tz Europe/Berlin, not without --tz"
	run --separate-stderr fwin -t 1 --tz Europe/Berlin --tumble 24h --state s.ckpt in
	assert_failure 2
	assert_equal "$stderr" "fwin: s.ckpt was made with --tumble 1d, not --tumble 24h"
	rm s.ckpt
	ok -t 1 --tumble 1w --state s.ckpt in
	run --separate-stderr fwin -t 1 --tumble 168h --state s.ckpt in
	assert_failure 2
	assert_equal "$stderr" "fwin: s.ckpt was made with --tumble 1w (weeks from Monday), not --tumble 1w"
	# 7d counts from Thursday 1970-01-01: other windows than 1w's
	run --separate-stderr fwin -t 1 --tumble 7d --state s.ckpt in
	assert_failure 2
	assert_equal "$stderr" "fwin: s.ckpt was made with --tumble 1w (weeks from Monday), not --tumble 1w"
	ok -t 1 --tumble 1w --state s.ckpt --flush in
	assert_output "$(rows 2026-03-23T00:00:00Z 2026-03-30T00:00:00Z 1)"
}

@test "the man page's CALENDAR TIME examples" {
	printf '%s\n' ts,shop,amount 2026-03-28T10:00:00+01:00,berlin,120 \
		2026-03-29T10:00:00+02:00,berlin,50 2026-03-29T23:30:00,berlin,30 > sales.csv
	ok --csv -H -t ts -k shop --tz Europe/Berlin --tumble 1d --sum amount sales.csv
	assert_output 'window_start,window_end,shop,sum_amount
2026-03-28T00:00:00+01:00,2026-03-29T00:00:00+01:00,berlin,120
2026-03-29T00:00:00+01:00,2026-03-30T00:00:00+02:00,berlin,80'
	ok --csv -H -t ts --tz Europe/Berlin --tumble 1mo --sum amount sales.csv
	assert_output 'window_start,window_end,sum_amount
2026-03-01T00:00:00+01:00,2026-04-01T00:00:00+02:00,200'
	ok --csv -H -t ts --tz Europe/Berlin --cumulate 1mo,1d --sum amount sales.csv
	assert_line --index 0 'window_start,window_end,sum_amount'
	assert_line --index 1 '2026-03-01T00:00:00+01:00,2026-03-29T00:00:00+01:00,120'
	assert_line --index 2 '2026-03-01T00:00:00+01:00,2026-03-30T00:00:00+02:00,200'
	assert_line --index 3 '2026-03-01T00:00:00+01:00,2026-03-31T00:00:00+02:00,200'
	assert_line --index 4 '2026-03-01T00:00:00+01:00,2026-04-01T00:00:00+02:00,200'
	assert_equal "${#lines[@]}" 5
	printf '%s\n' '28/03/2026 23:30' '29/03/2026 00:30' > bookings.log
	ok -d '|' -t 1 --time-format '%d/%m/%Y %H:%M' --tz Europe/Berlin --tumble 1d bookings.log
	assert_output "$(rows \
		2026-03-28T00:00:00+01:00 2026-03-29T00:00:00+01:00 1 \
		2026-03-29T00:00:00+01:00 2026-03-30T00:00:00+02:00 1)"
}
