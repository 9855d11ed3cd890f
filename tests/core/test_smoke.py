import ohhell.cards
from ohhell.cards import Card


def test_single_import_keeps_cards_interned() -> None:
    # R-DECK: the card table is built once, so parsing twice gives one object.
    assert Card.parse("AS") is ohhell.cards.Card.parse("as")
