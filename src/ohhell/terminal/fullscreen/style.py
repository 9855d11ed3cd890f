"""The full-screen app's style sheet: the full layout, the compact one
(``Screen.compact``) and the notice of a window too small (see ``layout``)."""

from __future__ import annotations

CSS = """
Screen { layout: vertical; }
#title { height: 1; background: $boost; padding: 0 1; }
#middle { height: 1fr; }
#players { width: 1fr; padding: 0 0 0 1; }
#log { width: 30%; min-width: 24; max-width: 40; border-left: vkey $panel-lighten-2; padding: 0 1;
       scrollbar-size-vertical: 1; overflow-x: hidden; }
#status { height: auto; min-height: 3; max-height: 5; padding: 0 1; }
#choices { height: 3; padding: 0 1; }
#bid-label { width: auto; height: 3; padding: 0 1 0 0; content-align: left middle; text-style: bold; }
#hand { height: 4; padding: 0 1; overflow-x: auto; }
.chip { width: auto; min-width: 5; height: 3; border: round $secondary; padding: 0 1;
        content-align: center middle; }
.chip.forbidden { color: $error; text-style: strike; border: round $error; }
.chip.current { border: heavy $success; }
.chip.hinted { border: double yellow; }
.card { width: 6; height: 4; border: round $panel-lighten-2; text-align: center; }
.card.legal { border: round $accent; background: $boost; }
.card.illegal { text-opacity: 45%; }
.card.cursor { border: heavy $warning; }
.card.hinted { border: double yellow; }
ModalScreen { align: center middle; }
.dialog { width: auto; max-width: 100%; height: auto; max-height: 100%; border: thick $primary;
          background: $surface; padding: 0 1; }
.dialog .fit { width: auto; }
#rules .dialog { width: 90%; }
#rules .dialog .fit { width: 1fr; }
.final { padding: 0 1; }
#too-small { display: none; width: 100%; height: 1fr; content-align: center middle; text-align: center;
             padding: 0 2; }
Screen.too-small #too-small { display: block; }
Screen.too-small #title, Screen.too-small #middle, Screen.too-small #status,
Screen.too-small #choices, Screen.too-small #hand { display: none; }
Screen.compact #log { display: none; }
Screen.compact.show-log #players { display: none; }
Screen.compact.show-log #log { display: block; width: 1fr; max-width: 100%; border-left: none; }
Screen.compact .card { width: 5; }
Screen.compact #status { max-height: 4; }
Screen.compact #choices { height: 1; }
Screen.compact #bid-label { height: 1; }
Screen.compact .chip { min-width: 3; height: 1; border: none; padding: 0 1; margin-right: 1;
                       background: $boost; }
Screen.compact .chip.forbidden { border: none; }
Screen.compact .chip.current { border: none; background: $success-darken-2; text-style: bold; }
Screen.compact .chip.hinted { border: none; background: $warning-darken-3; }
"""
