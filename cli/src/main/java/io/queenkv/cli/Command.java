package io.queenkv.cli;

/**
 * One parsed command line, ready to run. Parsing ({@link Commands}) refuses bad arguments before
 * anything is sent; running prints the result and answers the exit code, or throws
 * {@link CliFailure} (or an SDK exception) for {@link Cli} to turn into one line on stderr.
 */
sealed interface Command permits KvCommands.Get, KvCommands.Put, KvCommands.Delete, KvCommands.Incr,
        KvCommands.ListKeys, KvCommands.BatchCall, AdminCommands.ClusterStatus, AdminCommands.MemberAdd,
        AdminCommands.MemberRemove, AdminCommands.LeaderTransfer, AdminCommands.SettingsGet,
        AdminCommands.SettingsSet, AdminCommands.Backup, AdminCommands.Restore {

    Exit run(Context ctx);
}
