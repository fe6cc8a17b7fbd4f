# clap's own words, for every program of the workbook that parses its arguments
# with clap (src/cli.rs). The program's own texts are in its catalogue.

clap-usage = Usage:
# The usage line: the command, its options and arguments.
clap-usage-line = { $usage }
clap-commands = Commands
clap-arguments = Arguments
clap-options = Options
# The placeholders of a usage line.
clap-options-value = [OPTIONS]
clap-command-value = COMMAND
clap-help-flag = Print help
clap-version-flag = Print version
clap-help-command = Print this message or the help of the given command
clap-help-command-which = The command whose help to print
clap-default = [default: { $value }]
clap-env = [env: { $variable }]
# The values an argument takes, each with its help, under --help.
clap-possible-values = Possible values:
clap-possible-value = { $value } { $help }

clap-error = error:
clap-error-value-required = a value is required for '{ $arg }' but none was supplied
clap-error-invalid-value = invalid value '{ $value }' for '{ $arg }'
clap-error-possible-values = [possible values: { $values }]
clap-error-invalid-value-because = invalid value '{ $value }' for '{ $arg }': { $why }
clap-error-not-a-number = not a whole number
clap-error-unknown-argument = unexpected argument '{ $arg }' found
clap-error-unknown-command = unrecognized command '{ $command }'
clap-error-missing-argument = the following required arguments were not provided: { $arg }
clap-error-missing-command = a command is required: { $commands }
clap-error-conflict = the argument '{ $arg }' cannot be used with '{ $other }'
clap-error-too-many-values = unexpected value '{ $value }' for '{ $arg }' found; no more were expected
clap-error-number-of-values = wrong number of values for '{ $arg }'
clap-error-no-equals = an equal sign is needed when assigning values to '{ $arg }'
clap-error-not-utf8 = an argument is not valid UTF-8
clap-error-other = { $said }
clap-tip-command = tip: a similar command exists: '{ $similar }'
clap-tip-argument = tip: a similar argument exists: '{ $similar }'
clap-tip-value = tip: a similar value exists: '{ $similar }'
clap-more = For more information, try '{ $help }'.
