# bash completion for darc and darc-record (installed by meson, or:
#   . analyze/man/darc.bash).
# Commands and options come from the programs' own --help, so they follow
# the program; function names, task ids and comms from the database named
# on the command line (with the sqlite3 shell, when it is installed);
# darc-record's -g and -e from tracefs, when it is readable.

# The words of PROGRAM [CMD] --help that are options.
_darc_options()
{
	"$@" --help 2>/dev/null | grep -o -- '--[a-z][a-z0-9-]*' | sort -u
	"$@" --help 2>/dev/null | grep -oE '(^|[ ,])-[a-zA-Z]([ ,]|$)' | tr -d ' ,' | sort -u
}

# The database a darc command line names: its first argument that is a
# .db, or the database beside a recording (dir/x.dat -> dir/x.db).
_darc_db()
{
	local w
	for w in "${COMP_WORDS[@]:2}"; do
		case $w in
		-*) ;;
		*.db) [ -f "$w" ] && { echo "$w"; return; } ;;
		*.*) [ -f "${w%.*}.db" ] && { echo "${w%.*}.db"; return; } ;;
		esac
	done
}

# The distinct values of COLUMN in TABLE that start with the word typed.
_darc_sql()
{
	local db cur=${3//\'/\'\'}
	db=$(_darc_db)
	[ -n "$db" ] && command -v sqlite3 >/dev/null || return
	sqlite3 -readonly "$db" "SELECT DISTINCT $1 FROM $2
		WHERE substr($1, 1, length('$cur')) = '$cur' ORDER BY 1 LIMIT 500" 2>/dev/null
}

_darc()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd words
	local darc=${COMP_WORDS[0]}
	COMPREPLY=()
	if [ "$COMP_CWORD" -eq 1 ]; then
		words=$("$darc" --help 2>/dev/null | sed -n '/^commands:/,/^$/s/^  \([a-z]*\) .*/\1/p')
		mapfile -t COMPREPLY < <(compgen -W "$words --help --version" -- "$cur")
		return
	fi
	cmd=${COMP_WORDS[1]}
	case $prev in
	--func | --root)
		mapfile -t COMPREPLY < <(_darc_sql name func "$cur")
		return ;;
	--task)
		mapfile -t COMPREPLY < <(_darc_sql tid task "$cur")
		return ;;
	--comm)
		mapfile -t COMPREPLY < <(_darc_sql comm task "$cur")
		return ;;
	--metric)
		mapfile -t COMPREPLY < <(compgen -W "incl excl irq softirq preempt blocked calls offcpu" -- "$cur")
		return ;;
	--mode)
		mapfile -t COMPREPLY < <(compgen -W "max sum" -- "$cur")
		return ;;
	-o | --output | --svg)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return ;;
	esac
	if [[ $cur == -* ]]; then
		words=$(_darc_options "$darc" "$cmd")
		mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
		return
	fi
	# a recording, a database or a uftrace.data directory
	mapfile -t COMPREPLY < <(compgen -f -- "$cur" | grep -E '\.(db|dat|data|txt|trace|perf)$'
		compgen -d -- "$cur")
}

_darc_record()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} t=/sys/kernel/tracing
	COMPREPLY=()
	case $prev in
	-g | --graph | -n | --notrace | --kprobe | --kretprobe)
		[ -r $t/available_filter_functions ] &&
			mapfile -t COMPREPLY < <(grep -o "^${cur//[^A-Za-z0-9_.]/}[A-Za-z0-9_.]*" \
				$t/available_filter_functions | sort -u | head -500)
		return ;;
	-e | --event)
		[ -r $t/available_events ] &&
			mapfile -t COMPREPLY < <(compgen -W "$(cut -d: -f1 $t/available_events | sort -u)
				$(cat $t/available_events)" -- "$cur")
		return ;;
	-p | --pid)
		mapfile -t COMPREPLY < <(compgen -W "$(cd /proc && echo [0-9]*)" -- "$cur")
		return ;;
	-C | --clock)
		mapfile -t COMPREPLY < <(compgen -W "mono global local boot perf x86-tsc" -- "$cur")
		return ;;
	-o | --output | -U | --ufunc | --uprobe | --uretprobe)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return ;;
	esac
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_darc_options "${COMP_WORDS[0]}")" -- "$cur")
		return
	fi
	mapfile -t COMPREPLY < <(compgen -c -- "$cur")
}

complete -F _darc darc
complete -F _darc_record darc-record
