/*
 * redact_table.h - the table of test_redact.c: command lines as typed and
 * what may be stored of them (every secret contains "S3CR"), and
 * look-alikes that must be stored as typed.  Data only, included once.
 */
#ifndef TRACER_TEST_REDACT_TABLE_H
#define TRACER_TEST_REDACT_TABLE_H

/*
 * The table of secret forms: each command line, as typed, and what may be
 * stored.  None of the secrets (every one contains "S3CR") may survive.
 */
struct form {
	const char *argv[10];
	const char *want;
};

static const struct form forms[] = {
	{{"curl", "-u", "alice:S3CRpw", "https://h/"}, "curl -u alice:*** https://h/"},
	{{"curl", "--user", "alice:S3CRpw", "h"}, "curl --user alice:*** h"},
	{{"curl", "-ualice:S3CRpw", "h"}, "curl -ualice:*** h"},
	{{"curl", "--user=alice:S3CRpw"}, "curl --user=alice:***"},
	{{"curl", "-U", "proxy:S3CRpw", "h"}, "curl -U proxy:*** h"},
	{{"curl", "-H", "Authorization: Bearer S3CRtok"}, "curl -H Authorization: Bearer ***"},
	{{"curl", "-H", "Authorization: token S3CRtok"}, "curl -H Authorization: token ***"},
	{{"curl", "--oauth2-bearer", "S3CRtok", "h"}, "curl --oauth2-bearer *** h"},
	{{"openssl", "enc", "-aes256", "-pass", "pass:S3CRpw"}, "openssl enc -aes256 -pass ***"},
	{{"openssl", "pkcs12", "-passin", "pass:S3CRpw", "-passout", "pass:S3CRx"},
	 "openssl pkcs12 -passin pass:*** -passout pass:***"},
	{{"openssl", "enc", "-k", "S3CRpw"}, "openssl enc -k ***"},
	{{"tool", "--password", "S3CRpw", "x"}, "tool --password *** x"},
	{{"tool", "-password", "S3CRpw"}, "tool -password ***"},
	{{"mysql", "-u", "root", "-pS3CRpw", "db"}, "mysql -u root -p*** db"},
	{{"/usr/bin/mysqldump", "-pS3CRpw", "db"}, "/usr/bin/mysqldump -p*** db"},
	{{"git", "push", "https://ghp_S3CR456789abcdefghijklmnopqrstuvwxyz@github.com/o/r"},
	 "git push https://***@github.com/o/r"},
	{{"gh", "auth", "login", "--with-token", "ghp_S3CR456789abcdefghijklmnop"},
	 "gh auth login --with-token ***"},
	{{"x", "GH=ghp_S3CR456789abcdefghijklmnop"}, "x GH=***"},
	{{"x", "github_pat_11AAS3CR0123456789_abcdefghijklmnopqrstu"}, "x ***"},
	{{"x", "glpat-S3CR456789abcdefghij"}, "x ***"},
	{{"slack", "xoxb-1234-S3CR-abcdefghij"}, "slack ***"},
	{{"slack", "xoxp-1234-S3CR-abcdefghij"}, "slack ***"},
	{{"x", "hf_S3CRabcdefghijklmnopqrstuvwxyz0123"}, "x ***"},
	{{"x", "sk-S3CRabcdefghijklmnopqrstuvwxyz"}, "x ***"},
	{{"x", "sk_live_S3CRabcdefgh"}, "x ***"},
	{{"x", "AIzaS3CRabcdefghijklmnopqrstuvwxyz01234"}, "x ***"},
	{{"aws", "configure", "set", "aws_access_key_id", "AKIAS3CR567890ABCDEF"},
	 "aws configure set aws_access_key_id ***"},
	{{"aws", "configure", "set", "aws_secret_access_key", "S3CRabcdefGHIJKLmnop1234567890/+abcdefgh"},
	 "aws configure set aws_secret_access_key ***"},
	{{"s3cmd", "--access_key", "AKIAS3CR567890ABCDEF", "S3CRabcdefGHIJKLmnop1234567890/+abcdefgh"},
	 "s3cmd --access_key *** ***"},
	{{"x", "AKIAS3CR567890ABCDEF:S3CRabcdefGHIJKLmnop1234567890/+abcdefgh"}, "x ***:***"},
	{{"x", "--jwt", "eyJS3CRiOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.S3CRsignature"},
	 "x --jwt ***"},
	{{"psql", "postgresql://app:S3CRpw@db/x"}, "psql postgresql://app:***@db/x"},
	{{"psql", "host=db password=S3CRpw"}, "psql host=db password=***"},
	{{"sshpass", "-p", "S3CRpw", "ssh", "h"}, "sshpass -p *** ssh h"},
	{{"docker", "login", "-u", "bob", "-p", "S3CRpw", "reg"}, "docker login -u bob -p *** reg"},
	{{"redis-cli", "-a", "S3CRpw", "ping"}, "redis-cli -a *** ping"},
	{{"sqlcmd", "-S", "h", "-U", "sa", "-P", "S3CRpw"}, "sqlcmd -S h -U sa -P ***"},
	{{"smbclient", "//h/s", "-U", "bob%S3CRpw"}, "smbclient //h/s -U bob%***"},
	{{"gpg", "--batch", "--passphrase", "S3CRpw", "-d", "f"}, "gpg --batch --passphrase *** -d f"},
	{{"git", "config", "user.password", "S3CRpw"}, "git config user.password ***"},
	{{"azcopy", "copy", "https://a.blob.core.windows.net/c?sv=2020&sig=S3CRsig"},
	 "azcopy copy https://a.blob.core.windows.net/c?sv=2020&sig=***"},
	{{"x", "--key=-----BEGIN PRIVATE KEY-----S3CRkey"}, "x --key=-----BEGIN PRIVATE KEY-----***"},
	{{"env", "PGPASSWORD=S3CRpw", "psql"}, "env PGPASSWORD=*** psql"},
	/* short options joined to their value */
	{{"sshpass", "-pS3CRpw", "ssh", "h"}, "sshpass -p*** ssh h"},
	{{"docker", "login", "-u", "bob", "-pS3CRpw", "reg"}, "docker login -u bob -p*** reg"},
	{{"curl", "-su", "user:S3CRpw", "h"}, "curl -su user:*** h"},
	{{"curl", "-fsSLu", "user:S3CRpw", "h"}, "curl -fsSLu user:*** h"},
	{{"curl", "-fsSLuuser:S3CRpw", "h"}, "curl -fsSLuuser:*** h"},
	{{"redis-cli", "-aS3CRpw", "ping"}, "redis-cli -a*** ping"},
	{{"sqlcmd", "-PS3CRpw"}, "sqlcmd -P***"},
	{{"smbclient", "-Ubob%S3CRpw", "//h/s"}, "smbclient -Ubob%*** //h/s"},
	/* wrappers in front of the tool */
	{{"sudo", "sshpass", "-p", "S3CRpw", "ssh", "h"}, "sudo sshpass -p *** ssh h"},
	{{"sudo", "-u", "root", "sshpass", "-pS3CRpw", "ssh", "h"}, "sudo -u root sshpass -p*** ssh h"},
	{{"timeout", "60", "mysql", "-pS3CRpw", "db"}, "timeout 60 mysql -p*** db"},
	{{"timeout", "-s", "KILL", "60", "sqlcmd", "-PS3CRpw"}, "timeout -s KILL 60 sqlcmd -P***"},
	{{"srun", "mysql", "-pS3CRpw", "db"}, "srun mysql -p*** db"},
	{{"srun", "-n", "4", "--mem=4G", "mysql", "-pS3CRpw"}, "srun -n 4 --mem=4G mysql -p***"},
	{{"mpirun", "-np", "4", "-x", "LD_PATH", "mysql", "-pS3CRpw"}, "mpirun -np 4 -x LD_PATH mysql -p***"},
	{{"docker", "exec", "db", "mysql", "-pS3CRpw", "x"}, "docker exec db mysql -p*** x"},
	{{"docker", "exec", "-it", "-e", "A=1", "db", "mysql", "-pS3CRpw"}, "docker exec -it -e A=1 db mysql -p***"},
	{{"podman", "run", "--rm", "-v", "/a:/b", "img", "mysql", "-pS3CRpw"}, "podman run --rm -v /a:/b img mysql -p***"},
	{{"apptainer", "exec", "--bind", "/x", "i.sif", "mysql", "-pS3CRpw"}, "apptainer exec --bind /x i.sif mysql -p***"},
	{{"env", "curl", "-u", "u:S3CRpw", "h"}, "env curl -u u:*** h"},
	{{"env", "-i", "PATH=/bin", "curl", "-fsSLu", "u:S3CRpw", "h"}, "env -i PATH=/bin curl -fsSLu u:*** h"},
	{{"nice", "-n", "10", "ionice", "-c", "3", "sshpass", "-p", "S3CRpw"}, "nice -n 10 ionice -c 3 sshpass -p ***"},
	{{"/usr/bin/time", "-v", "redis-cli", "-a", "S3CRpw", "ping"}, "/usr/bin/time -v redis-cli -a *** ping"},
	{{"xargs", "-n", "1", "sshpass", "-pS3CRpw", "ssh"}, "xargs -n 1 sshpass -p*** ssh"},
	/* whole commands in one argument */
	{{"bash", "-c", "mysql -pS3CRpw db"}, "bash -c mysql -p*** db"},
	{{"sh", "-c", "tool --password S3CRpw"}, "sh -c tool --password ***"},
	{{"sh", "-c", "curl -u user:S3CRpw https://h/"}, "sh -c curl -u user:*** https://h/"},
	{{"bash", "-lc", "cd /d && mysql -p'S3CRpw' db"}, "bash -lc cd /d && mysql *** db"},
	{{"sh", "-c", "export X=1; sshpass -p \"S3CRpw\" ssh h"}, "sh -c export X=1; sshpass -p *** ssh h"},
	{{"su", "-c", "mysql -pS3CRpw", "bob"}, "su -c mysql -p*** bob"},
	{{"psql", "-c", "ALTER USER bob PASSWORD 'S3CRpw'"}, "psql -c ALTER USER bob PASSWORD '***'"},
	{{"psql", "-c", "CREATE ROLE r LOGIN PASSWORD 'S3CRpw'"}, "psql -c CREATE ROLE r LOGIN PASSWORD '***'"},
	{{"mysql", "-e", "CREATE USER u IDENTIFIED BY 'S3CRpw'"}, "mysql -e CREATE USER u IDENTIFIED BY '***'"},
	/* names the generic rules did not know */
	{{"az", "storage", "blob", "upload", "--account-key", "S3CRkey"}, "az storage blob upload --account-key ***"},
	{{"x", "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=S3CRkey;EndpointSuffix=c"},
	 "x DefaultEndpointsProtocol=https;AccountName=a;AccountKey=***"},
	{{"x", "SharedAccessSignature=sv=2020&sig=S3CRsig"}, "x SharedAccessSignature=***"},
	{{"env", "DB_PASS=S3CRpw", "SMTP_PASSWD=S3CRpw", "x"}, "env DB_PASS=*** SMTP_PASSWD=*** x"},
	{{"env", "APP_SECRET_VALUE=S3CRs", "GCS_KEY=S3CRk", "x"}, "env APP_SECRET_VALUE=*** GCS_KEY=*** x"},
	{{"curl", "-H", "X-Auth-Key: S3CRkey", "h"}, "curl -H X-Auth-Key: *** h"},
	{{"curl", "-H", "X-Vault-Token: S3CRtok", "h"}, "curl -H X-Vault-Token: *** h"},
	{{"curl", "-H", "Private-Token: S3CRtok", "h"}, "curl -H Private-Token: *** h"},
	{{"curl", "-H", "Cookie: sid=S3CRs", "h"}, "curl -H Cookie: *** h"},
	{{"ldapsearch", "-x", "-D", "cn=a", "-w", "S3CRpw"}, "ldapsearch -x -D cn=a -w ***"},
	{{"ldapsearch", "-wS3CRpw"}, "ldapsearch -w***"},
	{{"lftp", "-u", "bob,S3CRpw", "sftp://h"}, "lftp -u bob,*** sftp://h"},
	{{"rclone", "copy", "--sftp-pass", "S3CRpw", "a", "b"}, "rclone copy --sftp-pass *** a b"},
};

/* Look-alikes: stored as typed. */
static const struct form kept[] = {
	{{"tool", "--passes", "3", "--bypass", "x", "--key", "/etc/k.pem"}, NULL},
	{{"make", "key=value", "CC=gcc", "-j8"}, NULL},
	{{"curl", "-sSL", "-o", "out.txt", "https://h/x"}, NULL},
	{{"docker", "run", "-p", "8080:80", "-u", "1000:1000", "img"}, NULL},
	{{"sshpass", "-f", "/tmp/pwfile", "ssh", "h"}, NULL},
	{{"ssh", "-p", "22", "h"}, NULL},
	{{"bash", "-c", "echo hello; ls -l /tmp"}, NULL},
	{{"sort", "-u", "-t:", "-k2", "f"}, NULL},
	{{"psql", "-c", "SELECT password_hash FROM t"}, NULL},
	{{"tar", "-czf", "a.tgz", "d"}, NULL},
	{{"sudo", "-u", "bob", "make", "-j8"}, NULL},
	{{"srun", "-p", "gpu", "-n", "4", "python", "train.py", "--lr", "0.1"}, NULL},
	{{"timeout", "60", "mysql", "-p", "db"}, NULL},
	{{"grep", "-c", "order by 'date'", "f"}, NULL},
	{{"samtools", "view", "chr1:100-200", "-o", "x.bam"}, NULL},
};

#endif
