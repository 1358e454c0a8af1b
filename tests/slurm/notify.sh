# notify.sh - telling the user when a job ends, sourced by run.sh (after
# checks.sh): tracer-mail as the cluster's MailProg (the end mail holds the
# subject and the job's verdict), the verdict only of the job of the
# cluster and user slurmctld's environment names (never another's of the
# same id), tracer-mail with no tracer to ask (the mail still goes), and
# srun --tracer-notes (the verdict on srun's stderr,
# never on stdout; none without the option, for a short step, or with
# notes=no; plugstack's notes=yes).  tracerd runs with
# advice_min_runtime_s = 1.

# The mailer tracer-mail hands the mail to: each mail as one file in
# $T/mails (written aside, then renamed: a file there is whole), its
# arguments one per line, then its stdin.
notify_setup() {
	mkdir -p "$T/mails" || return 1
	cat >"$T/fake-mail" <<EOF2
#!/bin/sh
f=$T/mails/\$\$
{ for a in "\$@"; do printf 'ARG[%s]\n' "\$a"; done; echo BODY:; cat; } >"\$f.tmp" && mv "\$f.tmp" "\$f"
EOF2
	# slurmctld runs MailProg with Slurm's arguments only
	cat >"$T/mailprog" <<EOF2
#!/bin/sh
exec $BUILD/tracer-mail --config $T/tracer.conf --mail-command $T/fake-mail "\$@"
EOF2
	printf '#!/bin/sh\nexec sleep 30\n' >"$T/hung-tracer"
	chmod 0755 "$T/fake-mail" "$T/mailprog" "$T/hung-tracer"
}

# mail_of ID: the file of the mail about job ID (one line), else fails
mail_of() {
	grep -l "^ARG\[Slurm Job_id=$1 " "$T"/mails/* 2>/dev/null | head -n 1 | grep .
}

# sbatch --mail-type=END: slurmctld runs tracer-mail, which adds the
# verdict of the job (its batch step's summary) to the mail.
check_mail() {
	local j m
	if [ ! -x "$BUILD/tracer-mail" ]; then
		fail "tracer-mail not built: $BUILD/tracer-mail"
		return
	fi
	j=$(sbatch --parsable -J tmail --mail-type=END --mail-user=someone@example.org \
		-o /dev/null --wrap 'sleep 2')
	need_id "end mail" "$j" || return
	wait_until 60 "the end mail of job $j in $T/mails" mail_of "$j" || return
	m=$(mail_of "$j")
	expect_match "end mail: the subject as Slurm wrote it" "$(sed -n 2p "$m")" \
		"^ARG\[Slurm Job_id=$j Name=tmail Ended, Run time [0-9:]+, COMPLETED, ExitCode 0\]$"
	expect "end mail: -s first, the recipient last, as Slurm gave them" \
		"$(sed -n '1p;3p' "$m" | tr '\n' ' ')" "ARG[-s] ARG[someone@example.org] "
	expect_match "end mail: the verdict's heading" "$(cat "$m")" "-- tracer: job $j \(tracer show $j for more\) --"
	expect_match "end mail: state, CPU against the allocation, memory" "$(cat "$m")" \
		"COMPLETED after [0-9.]+ s: CPU [0-9]+% of [0-9]+ CPUs?, memory [0-9.]+ [MG]iB of [0-9.]+ [MG]iB"
	expect_match "end mail: the request for next time" "$(cat "$m")" \
		"Next time: #SBATCH --cpus-per-task=[0-9]+ --mem=[0-9]+[MG] --time=[0-9:]+"
}

# tracer-mail with no tracer to ask, or one that hangs: the mail goes out,
# arguments and body as given, without a verdict.
check_mail_no_tracer() {
	local how tracer sub rc m
	for how in missing hung; do
		tracer=$T/no-such-tracer
		[ "$how" = hung ] && tracer=$T/hung-tracer
		sub="Slurm Job_id=4242$RANDOM Name=x Ended, Run time 00:00:02, COMPLETED, ExitCode 0"
		printf 'the original body\n' | SLURM_JOB_UID=0 "$BUILD/tracer-mail" --config "$T/tracer.conf" \
			--tracer "$tracer" --timeout 1 --mail-command "$T/fake-mail" -s "$sub" someone \
			2>"$T/mail-$how.err"
		rc=$?
		expect "tracer-mail, tracer $how: the mailer's exit status" "$rc" 0
		m=$(grep -l -F "ARG[$sub]" "$T"/mails/* 2>/dev/null | head -n 1)
		if [ -z "$m" ]; then
			fail "tracer-mail, tracer $how: no mail went out (stderr: $(cat "$T/mail-$how.err"))"
			continue
		fi
		expect "tracer-mail, tracer $how: arguments and body as given" "$(cat "$m")" \
			"$(printf 'ARG[-s]\nARG[%s]\nARG[someone]\nBODY:\nthe original body' "$sub")"
		expect_match "tracer-mail, tracer $how: says why there is no verdict" \
			"$(cat "$T/mail-$how.err")" "no verdict for job 4242"
	done
}

# mail_env SUBJECT-EVENT ENV...: tracer-mail as slurmctld runs it for job
# $MJ (subject "... Ended" or "... Began"), with the environment given;
# the mail's file in MAILF ("" when none went out)
mail_env() {
	local ev=$1 sub
	shift
	sub="Slurm Job_id=$MJ Name=tmail $ev, Run time 00:00:02, COMPLETED, ExitCode 0"
	rm -f "$T"/mails/*
	env -u SLURM_CLUSTER_NAME -u SLURM_JOB_UID -u SLURM_JOB_USER -u SLURM_JOB_MAIL_TYPE "$@" \
		"$BUILD/tracer-mail" --config "$T/tracer.conf" --timeout 2 \
		--mail-command "$T/fake-mail" -s "$sub" someone </dev/null 2>"$T/mail-env.err"
	MAILF=$(grep -l -F "ARG[$sub]" "$T"/mails/* 2>/dev/null | head -n 1)
}

# the verdict's heading is in the mail (the mail went out either way)
mail_has_verdict() { [ -n "$MAILF" ] && grep -q -- "-- tracer: job $MJ " "$MAILF"; }
mail_without_verdict() { [ -n "$MAILF" ] && ! grep -q -- "-- tracer: job " "$MAILF"; }

# tracer-mail takes the job's cluster and owner from slurmctld's
# environment: only that cluster's job of that user is looked up, so
# another cluster's or another user's job of the same id is never mailed;
# the event comes from SLURM_JOB_MAIL_TYPE before the subject.
check_mail_scope() {
	local cl uid user
	MJ=$(sbatch --parsable -J tmailscope -o /dev/null --wrap 'sleep 2')
	need_id "scoped mail" "$MJ" || return
	wait_sum 1 60 job_id="$MJ" step_id=batch || return
	read -r cl uid user <<<"$("$BUILD/tracer" --config "$T/tracer.conf" show --json "$MJ" |
		python3 -c 'import json,sys; i=json.load(sys.stdin)["identity"]; print(i["cluster"], i["uid"], i["user"])')"
	mail_env Ended SLURM_CLUSTER_NAME="$cl" SLURM_JOB_UID="$uid"
	if mail_has_verdict; then pass "mail of $cl's job $MJ of uid $uid: the verdict"
	else fail "mail of $cl's job $MJ of uid $uid: no verdict ($(cat "$T/mail-env.err"))"; fi
	mail_env Ended SLURM_CLUSTER_NAME="$cl" SLURM_JOB_USER="$user"
	if mail_has_verdict; then pass "the owner by SLURM_JOB_USER ($user): the verdict"
	else fail "the owner by SLURM_JOB_USER ($user): no verdict ($(cat "$T/mail-env.err"))"; fi
	mail_env Ended SLURM_CLUSTER_NAME="other-$cl" SLURM_JOB_UID="$uid"
	if mail_without_verdict; then pass "job $MJ of another cluster: mailed without a verdict"
	else fail "job $MJ of another cluster: $( [ -n "$MAILF" ] && echo 'a verdict was added' || echo 'no mail')"; fi
	mail_env Ended SLURM_CLUSTER_NAME="$cl" SLURM_JOB_UID=$((uid + 4242))
	if mail_without_verdict; then pass "job $MJ of another user (uid $((uid + 4242))): mailed without a verdict"
	else fail "job $MJ of another user: $( [ -n "$MAILF" ] && echo 'a verdict was added' || echo 'no mail')"; fi
	mail_env Ended SLURM_CLUSTER_NAME="$cl"
	if mail_without_verdict && grep -q "the job's owner is not known" "$T/mail-env.err"; then
		pass "no SLURM_JOB_UID nor SLURM_JOB_USER: mailed without a verdict, saying why"
	else fail "no owner in the environment: $(cat "$T/mail-env.err")"; fi
	mail_env Began SLURM_CLUSTER_NAME="$cl" SLURM_JOB_UID="$uid" SLURM_JOB_MAIL_TYPE=Ended
	if mail_has_verdict; then pass "SLURM_JOB_MAIL_TYPE=Ended before the subject's Began: the verdict"
	else fail "SLURM_JOB_MAIL_TYPE=Ended, subject Began: no verdict ($(cat "$T/mail-env.err"))"; fi
	mail_env Ended SLURM_CLUSTER_NAME="$cl" SLURM_JOB_UID="$uid" SLURM_JOB_MAIL_TYPE=Began
	if mail_without_verdict; then pass "SLURM_JOB_MAIL_TYPE=Began before the subject's Ended: no verdict"
	else fail "SLURM_JOB_MAIL_TYPE=Began, subject Ended: $( [ -n "$MAILF" ] && echo 'a verdict was added' || echo 'no mail')"; fi
}

# notes_run NAME SRUN_OPTIONS...: a 2 s step printing "out-NAME"; its
# stdout, stderr and status in $T/notes-NAME.{out,err,rc}
notes_run() {
	local name=$1
	shift
	srun "$@" -J "tnotes-$name" sh -c "sleep 2; echo out-$name" \
		>"$T/notes-$name.out" 2>"$T/notes-$name.err"
	echo $? >"$T/notes-$name.rc"
}

# the step's verdict on stderr, nothing of it on stdout
expect_notes() {
	local what=$1 name=$2 n
	expect "$what: srun exit status" "$(cat "$T/notes-$name.rc")" 0
	expect "$what: stdout is the step's alone" "$(cat "$T/notes-$name.out")" "out-$name"
	expect_match "$what: the verdict on stderr" "$(cat "$T/notes-$name.err")" \
		"^tracer: COMPLETED after [0-9.]+ s: CPU [0-9]+% of [0-9]+ CPUs?, memory "
	expect_match "$what: the request for next time on stderr" "$(cat "$T/notes-$name.err")" \
		"tracer: Next time: #SBATCH --cpus-per-task=1 "
	n=$(grep -c '^tracer: ' "$T/notes-$name.err")
	if [ "$n" -le 3 ]; then
		pass "$what: at most 3 lines ($n)"
	else
		fail "$what: $n lines of notes, at most 3 wanted"
	fi
}

# srun ended (its files are whole): none of our lines
expect_no_notes() {
	local what=$1 name=$2
	expect "$what: srun exit status" "$(cat "$T/notes-$name.rc")" 0
	expect "$what: stdout is the step's alone" "$(cat "$T/notes-$name.out")" "out-$name"
	expect "$what: no notes on stderr" "$(grep -c '^tracer: ' "$T/notes-$name.err")" 0
}

check_notes() {
	local j
	notes_run asked --tracer-notes
	expect_notes "srun --tracer-notes" asked
	notes_run plain
	j=$(jobid_by_name tnotes-plain)
	need_id "srun without --tracer-notes" "$j" && wait_sum 1 10 job_id="$j" &&
		expect_no_notes "srun without --tracer-notes (its summary written)" plain
	# a step under advice_min_runtime_s (1 s): no advice, no notes
	srun --tracer-notes -J tnotes-short /bin/echo out-short >"$T/notes-short.out" \
		2>"$T/notes-short.err"
	echo $? >"$T/notes-short.rc"
	j=$(jobid_by_name tnotes-short)
	need_id "srun --tracer-notes, short step" "$j" && wait_sum 1 10 job_id="$j" &&
		expect_no_notes "srun --tracer-notes, step under advice_min_runtime_s" short
	cluster_set_plugstack "$PLUGSTACK_LINE notes=yes"
	notes_run site
	notes_run siteno --tracer-notes=no
	cluster_set_plugstack "$PLUGSTACK_LINE notes=no"
	notes_run forbidden --tracer-notes
	cluster_set_plugstack "$PLUGSTACK_LINE"
	expect_notes "plugstack notes=yes, srun without the option" site
	expect_no_notes "plugstack notes=yes, srun --tracer-notes=no" siteno
	expect_no_notes "plugstack notes=no, srun --tracer-notes" forbidden
}

# tracerd stopped (the plugin still loaded): srun --tracer-notes succeeds
# and prints nothing of ours
check_notes_no_daemon() {
	plugstack_for stopped
	notes_run down --tracer-notes
	plugstack_for none
	expect_no_notes "tracerd stopped, srun --tracer-notes" down
}
