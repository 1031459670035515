package dev.leasehold.testkit;

import java.util.stream.Collectors;

/**
 * A member's {@code patroni.yml}. Timings for a quick failover on one machine: {@code ttl 10}, {@code loop_wait 1},
 * {@code retry_timeout 3}, and {@code primary_start_timeout 0} so that a crashed primary PostgreSQL is failed over at
 * once instead of restarted in place. {@code use_pg_rewind} (with {@code wal_log_hints}) lets a killed primary rejoin
 * as a standby. initdb and pg_basebackup skip their fsync (a throwaway cluster whose processes are killed, never
 * its machine: the page cache survives). Stateless.
 */
final class PatroniYaml {

    private PatroniYaml() {}

    static String of(
            PatroniConfig config, String scope, PatroniMember member, String superuserPassword, String replPassword) {
        String hosts = ConnectString.parse(config.zookeeper()).servers().stream()
                .map(server -> "'" + server + "'")
                .collect(Collectors.joining(", ", "[", "]"));
        String dir = member.directory().toString();
        boolean sync = config.synchronous();
        return String.join(
                "\n",
                "scope: " + scope,
                "namespace: /service/",
                "name: " + member.name(),
                "log:",
                "  level: WARNING",
                "restapi:",
                "  listen: 127.0.0.1:" + member.restPort(),
                "  connect_address: 127.0.0.1:" + member.restPort(),
                "zookeeper:",
                "  hosts: " + hosts,
                "bootstrap:",
                "  dcs:",
                "    ttl: 10",
                "    loop_wait: 1",
                "    retry_timeout: 3",
                "    maximum_lag_on_failover: 1048576",
                "    primary_start_timeout: 0",
                "    synchronous_mode: " + sync,
                "    synchronous_mode_strict: " + sync,
                "    postgresql:",
                "      use_pg_rewind: true",
                "      use_slots: true",
                "      parameters:",
                "        wal_level: replica",
                "        hot_standby: 'on'",
                "        wal_log_hints: 'on'",
                "        max_wal_senders: 8",
                "        max_replication_slots: 8",
                "        synchronous_commit: 'on'",
                "  initdb:",
                "    - encoding: UTF8",
                "    - locale: C.UTF-8",
                "    - no-sync",
                "postgresql:",
                "  listen: 127.0.0.1:" + member.postgresPort(),
                "  connect_address: 127.0.0.1:" + member.postgresPort(),
                "  data_dir: " + member.data(),
                "  bin_dir: " + Patroni.POSTGRES_BIN,
                "  pgpass: " + dir + "/pgpass",
                "  authentication:",
                "    superuser:",
                "      username: postgres",
                "      password: '" + superuserPassword + "'",
                "    replication:",
                "      username: replicator",
                "      password: '" + replPassword + "'",
                "    rewind:",
                "      username: postgres",
                "      password: '" + superuserPassword + "'",
                "  basebackup:",
                "    - checkpoint: fast",
                "    - no-sync",
                "  pg_hba:",
                "    - local all all trust",
                "    - local replication all trust",
                "    - host replication replicator 127.0.0.1/32 md5",
                "    - host all all 127.0.0.1/32 md5",
                "  parameters:",
                "    unix_socket_directories: '" + dir + "'",
                "    shared_buffers: 32MB",
                "    max_connections: 50",
                "tags:",
                "  nofailover: false",
                "  noloadbalance: false",
                "  clonefrom: false",
                "  nosync: false",
                "");
    }
}
