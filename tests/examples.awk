# examples.awk: the examples of a page, as a bash script for
# tests/examples.bats. The page is man/fwin.1 (mdoc: examples in
# `.Bd -literal` displays) or README.md (examples in ``` fences).
#
# In an example display, a line "$ COMMAND" (continued on the next line
# when it ends in a backslash) is a command, and the lines after it, up to
# the next command or the display's end, are what it prints. Displays
# without a command are not examples. For each command this writes
#
#     example_run 'PAGE:LINE' 'COMMAND' 'OUTPUT'
#
# Marks in the page's source, which a reader of the page does not see
# (roff comments `.\" example: ...` in the man page, HTML comments
# `<!-- example: ... -->` in the README), placed before a display or in it:
#     example: skip REASON   the display is not run (say why)
#     example: COMMAND       run COMMAND first, its output unchecked
#                            (what happens between two displays)
# Each is written as `example_skip 'PAGE:LINE' 'REASON'` or
# `example_setup 'COMMAND'`.

function q(s) {			# s, single-quoted for the shell
	gsub(/'/, "'\\''", s)
	return "'" s "'"
}

function flush_cmd() {
	if (cmd != "" && !skipping)
		print "example_run " q(FILENAME ":" cmdline) " " q(cmd) " " q(out)
	cmd = ""
	out = ""
	nout = 0
}

function mark(text) {		# an example: mark's text
	sub(/^[ \t]*example:[ \t]*/, "", text)
	if (text ~ /^skip([ \t]|$)/) {
		sub(/^skip[ \t]*/, "", text)
		pending_skip = text
		pending_line = FNR
	} else if (text != "") {
		if (!in_block)
			pending_setup = pending_setup (pending_setup == "" ? "" : "\n") text
		else if (!skipping) {
			flush_cmd()
			print "example_setup " q(text)
		}
	}
}

function begin_block() {
	in_block = 1
	skipping = pending_skip != ""
	if (skipping)
		print "example_skip " q(FILENAME ":" pending_line) " " q(pending_skip)
	else if (pending_setup != "")
		print "example_setup " q(pending_setup)
	pending_skip = ""
	pending_setup = ""
	cmd = ""
	cont = 0
}

function end_block() {
	flush_cmd()
	in_block = 0
	skipping = 0
}

function body(line) {		# a line of a display, unescaped
	if (cont) {
		cmd = cmd "\n" line
		cont = line ~ /\\$/
		return
	}
	if (line ~ /^\$ /) {
		flush_cmd()
		cmd = substr(line, 3)
		cmdline = FNR
		cont = line ~ /\\$/
		return
	}
	if (cmd != "") {
		out = out (nout++ ? "\n" : "") line
	}
}

BEGIN { man = 0 }
FNR == 1 { man = FILENAME ~ /\.[1-9]$/ }

man && /^\.\\" example:/ {
	t = $0
	sub(/^\.\\"[ \t]*/, "", t)
	mark(t)
	next
}
man && /^\.Bd -literal/ { begin_block(); next }
man && in_block && /^\.Ed/ { end_block(); next }
man && in_block {
	line = $0
	gsub(/\\e/, "\\", line)
	body(line)
	next
}

!man && /^<!-- example:.*-->$/ {
	t = $0
	sub(/^<!--[ \t]*/, "", t)
	sub(/[ \t]*-->$/, "", t)
	mark(t)
	next
}
!man && /^```/ {
	if (in_block)
		end_block()
	else
		begin_block()
	next
}
!man && in_block { body($0); next }
