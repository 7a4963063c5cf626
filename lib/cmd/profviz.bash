# SPDX-License-Identifier: MIT
# bash completion for profviz: the commands, then each command's options as
# its own --help lists them (so they follow the command installed), then
# files; after `profviz run ... --`, a program, then its files.

# What the help that "$@" prints lists: the commands or the options, as
# _profviz_take says.
_profviz_help_words()
{
	local line word
	"$@" 2>/dev/null | while IFS= read -r line; do
		case $_profviz_take in
		commands) # "  run      run a program..." under "Commands:"
			[[ $line =~ ^\ \ ([a-z]+)\ \  ]] && printf "%s\n" "${BASH_REMATCH[1]}" ;;
		options) # "  -n, --node-threshold P  hide ...": the leading options
			[[ $line =~ ^\ {1,4}- ]] || continue
			for word in $line; do
				[[ $word == -* ]] || break
				printf "%s\n" "${word%,}"
			done ;;
		esac
	done
}

_profviz()
{
	local cur=${COMP_WORDS[COMP_CWORD]} profviz=${COMP_WORDS[0]} command=${COMP_WORDS[1]} i
	COMPREPLY=()
	if ((COMP_CWORD == 1)); then
		COMPREPLY=($(compgen -W "$(_profviz_take=commands _profviz_help_words "$profviz" \
			--help) --help --version" -- "$cur"))
		return
	fi
	if [[ $command == help ]]; then
		((COMP_CWORD == 2)) && COMPREPLY=($(compgen -W "$(_profviz_take=commands \
			_profviz_help_words "$profviz" --help) variables all" -- "$cur"))
		return
	fi
	for ((i = 2; i < COMP_CWORD; i++)); do
		if [[ $command == run && ${COMP_WORDS[i]} == -- ]]; then
			((i + 1 == COMP_CWORD)) && COMPREPLY=($(compgen -c -- "$cur"))
			return # the program's own arguments: files
		fi
	done
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_profviz_take=options _profviz_help_words "$profviz" \
			"$command" --help) --help" -- "$cur"))
	fi
}

# Nothing proposed: files, as readline would.
complete -o default -F _profviz profviz
