/* tiny - exits at once with the code given as argv[1]: a 1 ms tool. */
#include <stdlib.h>

int main(int argc, char **argv)
{
	return argc > 1 ? atoi(argv[1]) : 0;
}
