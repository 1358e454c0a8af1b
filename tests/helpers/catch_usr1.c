/*
 * catch_usr1 OUT READY - for the runner's test: note SIGUSR1 in OUT, then
 * take SIGRTMIN+3 at its default action (a shell cannot leave real-time
 * signals alone like this).  READY is created once the handler is in
 * place.  SIGRTMIN+3 stays blocked until SIGUSR1 is noted: a fatal signal
 * sent right behind a caught one may end the process before the handler
 * ever runs.  Bounded by an alarm (20 s).
 */
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static int out_fd = -1;
static volatile sig_atomic_t got_usr1;

static void on_usr1(int sig)
{
	(void)sig;
	if (write(out_fd, "USR1\n", 5) != 5)
		_exit(2);
	got_usr1 = 1;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	sigset_t block, old, wait;
	int fd;

	if (argc != 3)
		return 3;
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigaddset(&block, SIGRTMIN + 3);
	sigprocmask(SIG_BLOCK, &block, &old);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigfillset(&sa.sa_mask);
	out_fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out_fd < 0 || sigaction(SIGUSR1, &sa, NULL) < 0)
		return 3;
	fd = open(argv[2], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return 3;
	close(fd);
	alarm(20); /* never left waiting for nothing */
	wait = old;
	sigdelset(&wait, SIGUSR1);
	sigaddset(&wait, SIGRTMIN + 3);
	while (!got_usr1)
		sigsuspend(&wait);
	sigprocmask(SIG_SETMASK, &old, NULL); /* SIGRTMIN+3, if here, ends us */
	for (;;)
		pause();
}
