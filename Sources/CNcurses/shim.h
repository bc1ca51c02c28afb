#ifndef PUSHTOP_CNCURSES_SHIM_H
#define PUSHTOP_CNCURSES_SHIM_H
#define NCURSES_WIDECHAR 1
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#include <locale.h>
#include <langinfo.h>
#include <wchar.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <ncursesw/curses.h>

static inline WINDOW *pt_stdscr(void) { return stdscr; }
static inline int pt_lines(void) { return LINES; }
static inline int pt_cols(void) { return COLS; }
static inline int pt_colors(void) { return COLORS; }
static inline int pt_color_pairs(void) { return COLOR_PAIRS; }
static inline attr_t pt_a_bold(void) { return A_BOLD; }
static inline attr_t pt_a_dim(void) { return A_DIM; }
static inline attr_t pt_a_reverse(void) { return A_REVERSE; }
static inline attr_t pt_a_underline(void) { return A_UNDERLINE; }
static inline attr_t pt_a_normal(void) { return A_NORMAL; }
static inline attr_t pt_color_pair(int n) { return COLOR_PAIR(n); }
static inline int pt_key_resize(void) { return KEY_RESIZE; }
static inline int pt_key_up(void) { return KEY_UP; }
static inline int pt_key_down(void) { return KEY_DOWN; }
static inline int pt_key_left(void) { return KEY_LEFT; }
static inline int pt_key_right(void) { return KEY_RIGHT; }
static inline int pt_key_home(void) { return KEY_HOME; }
static inline int pt_key_end(void) { return KEY_END; }
static inline int pt_key_npage(void) { return KEY_NPAGE; }
static inline int pt_key_ppage(void) { return KEY_PPAGE; }
static inline int pt_key_btab(void) { return KEY_BTAB; }
static inline int pt_key_enter(void) { return KEY_ENTER; }
static inline int pt_key_backspace(void) { return KEY_BACKSPACE; }
static inline int pt_key_dc(void) { return KEY_DC; }
static inline int pt_key_mouse(void) { return KEY_MOUSE; }
static inline int pt_err(void) { return ERR; }
static inline int pt_ok(void) { return OK; }
static inline WINDOW *pt_curscr(void) { return curscr; }
static inline int pt_key_code_yes(void) { return KEY_CODE_YES; }
static inline mmask_t pt_mouse_mask(void) {
    return BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED | BUTTON5_PRESSED;
}
static inline int pt_mouse_is_click(mmask_t s) { return (s & (BUTTON1_PRESSED | BUTTON1_CLICKED)) != 0; }
static inline int pt_mouse_is_wheel_up(mmask_t s) { return (s & BUTTON4_PRESSED) != 0; }
static inline int pt_mouse_is_wheel_down(mmask_t s) { return (s & BUTTON5_PRESSED) != 0; }
/* Reads the next key with wget_wch: returns ERR, OK (a character in *ch) or KEY_CODE_YES (a key code). */
static inline int pt_get_wch(wint_t *ch) { return wget_wch(stdscr, ch); }

/* Crash handling: restore the terminal, let the handler that was there before run (the Swift runtime's
   backtracer prints its report on a sane terminal), then die of the signal with the default action, so the
   exit status says what happened even when the earlier handler returns. */
static inline struct sigaction *pt_previous_actions(void) {
    static struct sigaction actions[32];
    return actions;
}

static inline void pt_crash_handler(int sig, siginfo_t *info, void *context) {
    if (stdscr != NULL && !isendwin()) endwin();
    if (sig > 0 && sig < 32) {
        struct sigaction *old = &pt_previous_actions()[sig];
        if (old->sa_flags & SA_SIGINFO) {
            if (old->sa_sigaction != NULL) old->sa_sigaction(sig, info, context);
        } else if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN && old->sa_handler != NULL) {
            old->sa_handler(sig);
        }
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static inline void pt_install_crash_handlers(void) {
    static const int sigs[] = { SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE, SIGTRAP };
    for (unsigned i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = pt_crash_handler;
        action.sa_flags = SA_SIGINFO;
        sigemptyset(&action.sa_mask);
        sigaction(sigs[i], &action, &pt_previous_actions()[sigs[i]]);
    }
}
static inline int pt_terminal_size(int fd, int *rows, int *cols) {
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) != 0) return -1;
    *rows = ws.ws_row; *cols = ws.ws_col;
    return 0;
}
#endif
