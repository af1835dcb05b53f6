"""The chrome around the text (`extract/periphery.py`, issue 14): each rule on a page
built for it, and the things it must never remove."""

from __future__ import annotations

from webmd_spider.extract import ExtractOptions, extract

URL = "https://news.example/2026/03/barrier"
SENTENCE = (
    "The council met on Friday to decide how the lower town should be protected from the "
    "spring tides that flood it every few years. "
)
PROSE = SENTENCE * 3


def page(body: str, head: str = "") -> str:
    return (
        f"<html><head><title>Barrier approved | Harbour Ledger</title>{head}</head><body>"
        "<header><a href='/'>Harbour Ledger</a></header>"
        f"{body}<footer>© Harbour Ledger</footer></body></html>"
    )


def article(inner: str, after: str = "", head: str = "") -> str:
    return page(f"<article><h1>Barrier approved</h1>{inner}</article>{after}", head)


def test_markdown_opens_with_the_title_and_text_is_the_body() -> None:
    doc = extract(article(f"<p>{PROSE}</p><p>{PROSE}</p>"), URL)
    assert doc.markdown.startswith("# Barrier approved\n\nThe council met")
    assert doc.text.startswith("The council met")
    assert "Barrier approved" not in doc.text
    assert doc.headings[0].level == 1 and doc.headings[0].text == "Barrier approved"
    assert doc.markdown.count("Barrier approved") == 1


def test_kicker_byline_date_and_deck_go_to_fields() -> None:
    deck = "Councillors voted 31 to 9 to fund the first phase of a moveable barrier."
    body = (
        "<div class='story-top'><span class='kicker'>Flood defence</span>"
        "<h1>Barrier approved</h1><p>By Jane Roe</p><p>21 March 2026</p>"
        f"<p class='standfirst'>{deck}</p></div><p>{PROSE}</p><p>{PROSE}</p>"
    )
    doc = extract(
        page(f"<article>{body}</article>", f"<meta name='description' content='{deck}'>"), URL
    )
    for chrome in ("Flood defence", "Jane Roe", "21 March 2026", deck):
        assert chrome not in doc.text, chrome
    assert doc.description == deck
    assert doc.text.startswith("The council met")


def test_a_comment_thread_longer_than_the_article_goes() -> None:
    comments = "".join(
        f"<li class='reply'><b>reader{i}</b><p>{SENTENCE * 2} I disagree with point {i}.</p></li>"
        for i in range(12)
    )
    html = article(
        f"<p>{PROSE}</p><p>{PROSE}</p>",
        after=f"<section><h2>34 responses to “Barrier approved”</h2><ol>{comments}</ol></section>",
    )
    doc = extract(html, URL)
    assert "I disagree with point" not in doc.text
    assert "responses to" not in doc.markdown
    assert doc.text.count("The council met") == 6


def test_a_thread_that_is_the_page_stays() -> None:
    posts = "".join(
        f"<div class='post'><b>user{i}</b><div class='post-body'><p>{SENTENCE} Post number {i}."
        "</p></div></div>"
        for i in range(6)
    )
    doc = extract(page(f"<main><h1>Paddle stuck in the pan</h1>{posts}</main>"), URL)
    assert all(f"Post number {i}." in doc.text for i in range(6))


def test_related_grid_and_inline_related_links_go() -> None:
    cards = "".join(
        f"<a href='/2026/03/story-{i}'><h3>Other story {i}</h3><p>A short blurb.</p></a>"
        for i in range(4)
    )
    inner = (
        f"<p>{PROSE}</p><p>Related: <a href='/2026/02/levees'>Levees fail again</a></p>"
        f"<p>{PROSE}</p>"
    )
    doc = extract(
        article(inner, after=f"<div class='grid'><h2>More from the Ledger</h2>{cards}</div>"), URL
    )
    assert "Other story" not in doc.markdown and "More from the Ledger" not in doc.markdown
    assert "Levees fail again" not in doc.markdown
    assert doc.text.count("The council met") == 6


def test_photo_captions_and_credits_go_unless_asked() -> None:
    figure = (
        "<figure><img src='/img/gates.jpg' alt='The gates'>"
        "<figcaption>A model of the gates. Photo: Tom Avery/Getty Images</figcaption></figure>"
    )
    html = article(f"{figure}<p>{PROSE}</p><p>{PROSE}</p>")
    doc = extract(html, URL)
    assert "Getty" not in doc.text and "A model of the gates" not in doc.markdown
    assert "![The gates](https://news.example/img/gates.jpg)" in doc.markdown  # the image stays
    kept = extract(html, URL, options=ExtractOptions(keep_captions=True))
    assert "A model of the gates. Photo: Tom Avery/Getty Images" in kept.text
    assert "A model of the gates" in kept.markdown


def test_a_pictures_caption_in_a_table_cell_goes_unless_asked() -> None:
    # an infobox: the picture's caption sits in a cell beside it; the data rows stay
    infobox = (
        "<table class='infobox'><caption>Marrow Viaduct</caption>"
        "<tr><td colspan='2'><img src='/v.jpg' alt='The viaduct'>"
        "<div class='infobox-caption'>The viaduct from the creek bed in 2019</div></td></tr>"
        "<tr><th>Length</th><td>412 m</td></tr><tr><th>Opened</th><td>1897</td></tr></table>"
    )
    html = article(f"{infobox}<p>{PROSE}</p><p>{PROSE}</p>")
    doc = extract(html, URL)
    assert "creek bed" not in doc.markdown
    assert "![The viaduct](https://news.example/v.jpg)" in doc.markdown
    assert "| Length | 412 m |" in doc.markdown and "| Opened | 1897 |" in doc.markdown
    kept = extract(html, URL, options=ExtractOptions(keep_captions=True))
    assert "The viaduct from the creek bed in 2019" in kept.markdown


def test_a_documents_figure_and_table_captions_stay() -> None:
    body = (
        "<main><h1>Concurrency Control</h1>"
        f"<p>{PROSE}</p><figure><img src='/fig/mvcc.png' alt='MVCC'>"
        "<figcaption>Figure 13.1. Row versions seen by two transactions</figcaption></figure>"
        "<table><caption>Table 13.1. Transaction Isolation Levels</caption>"
        "<tr><th>Level</th><th>Dirty Read</th></tr><tr><td>Read committed</td><td>No</td></tr>"
        f"</table><p>{PROSE}</p></main>"
    )
    doc = extract(page(body), "https://docs.example/mvcc.html")
    assert "Figure 13.1. Row versions seen by two transactions" in doc.text
    assert "Transaction Isolation Levels" in doc.markdown


def test_author_bio_and_newsletter_box_go() -> None:
    after = (
        "<div class='about-author'><img src='/a.jpg' alt=''><p>Jane Roe writes about the "
        "coast. She has covered the council for ten years.</p></div>"
        "<div class='signup-box'><h3>Get the newsletter</h3><p>Subscribe to our weekly "
        "briefing.</p></div>"
    )
    doc = extract(article(f"<p>{PROSE}</p><p>{PROSE}</p>{after}"), URL)
    assert "covered the council" not in doc.text
    assert "Subscribe" not in doc.text and "Get the newsletter" not in doc.markdown


def test_data_table_rows_with_player_classes_all_stay() -> None:
    rows = "".join(
        f"<tr class='player-row video-row'><td>{i}</td><td>Team {i}</td><td>{40 - i}</td></tr>"
        for i in range(1, 13)
    )
    table = (
        "<table><thead><tr><th>Pos</th><th>Team</th><th>Pts</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
    )
    doc = extract(article(f"<p>{PROSE}</p>{table}<p>{PROSE}</p>"), URL)
    assert all(f"| {i} | Team {i} | {40 - i} |" in doc.markdown for i in range(1, 13))
    assert len(doc.tables[0]["rows"]) == 12


def test_further_reading_of_other_sites_is_not_promotion() -> None:
    reading = (
        "<h2>Further reading</h2><ul><li><a href='https://tides.example/a'>Tide tables</a></li>"
        "<li><a href='https://sea.example/b'>Barriers of Europe</a></li></ul>"
    )
    doc = extract(article(f"<p>{PROSE}</p><p>{PROSE}</p>{reading}"), URL)
    assert "## Further reading" in doc.markdown and "Barriers of Europe" in doc.markdown


def test_a_listing_page_stays_a_listing() -> None:
    cards = "".join(
        f"<article class='card'><h2><a href='/2026/03/s{i}'>Story number {i}</a></h2>"
        f"<p>Teaser {i}: the council decided something important about the harbour.</p></article>"
        for i in range(8)
    )
    doc = extract(page(f"<main><h1>Latest articles</h1>{cards}</main>"), "https://news.example/")
    assert all(f"Story number {i}" in doc.markdown for i in range(8))
    assert all(f"Teaser {i}:" in doc.text for i in range(8))


ARTICLE_HEAD = "<meta property='article:published_time' content='2026-03-21T09:00:00Z'>"


def test_a_paywall_notice_and_its_offer_go_with_a_trailing_app_prompt() -> None:
    body = (
        f"<p>{PROSE}</p><p>{PROSE}</p>"
        "<p>To view the full story, please subscribe to the Harbour Ledger.</p>"
        "<p>You can choose an annual plan or a weekly pass for the whole archive.</p>"
        "<p>Download our app for the latest stories: <a href='/app'>iOS</a> and "
        "<a href='/android'>Android</a>.</p>"
    )
    doc = extract(article(body, head=ARTICLE_HEAD), URL)
    assert doc.text.count("The council met") == 6
    for chrome in ("full story", "weekly pass", "Download our app"):
        assert chrome not in doc.text, chrome


def test_a_manual_keeps_its_closing_follow_the_steps_paragraph() -> None:
    # no article metadata: the closing-prompt pass does not judge a manual's last lines
    closing = (
        "To report a bug, subscribe to the mailing list and follow the "
        "<a href='/bugs'>instructions</a> there."
    )
    doc = extract(article(f"<p>{PROSE}</p><p>{PROSE}</p><p>{closing}</p>"), URL)
    assert "follow the instructions there." in doc.text


def test_a_teaser_grid_under_a_more_heading_goes_mid_page() -> None:
    cards = "".join(
        f"<div class='card'><a href='/story/{i}'>Story number {i} in the grid</a>"
        f"<p>A short blurb about story {i}.</p></div>"
        for i in range(4)
    )
    body = (
        f"<p>{PROSE}</p><h2>Mehr zu Klima und Konsum</h2><div class='grid'>{cards}</div>"
        f"<p>{PROSE}</p><p>{PROSE}</p>"
    )
    doc = extract(article(body), URL)
    assert "Story number" not in doc.text and "Mehr zu Klima" not in doc.text
    assert doc.text.count("The council met") == 9


def test_a_more_label_on_a_line_of_its_own_takes_its_list() -> None:
    links = "".join(f"<li><a href='/s/{i}'>Another headline {i}</a></li>" for i in range(5))
    body = f"<p>{PROSE}</p><p>{PROSE}</p><div><span>Zobacz również</span><ul>{links}</ul></div>"
    doc = extract(article(body), URL)
    assert "Zobacz" not in doc.text and "Another headline" not in doc.text


def test_a_sentence_that_starts_like_a_label_is_text() -> None:
    body = (
        f"<p>{PROSE}</p><p>Similar to <code>open()</code> but for sockets.</p>"
        "<p><a href='/a'><code>read()</code></a>, <a href='/b'><code>write()</code></a></p>"
        f"<p>{PROSE}</p>"
    )
    doc = extract(article(body), URL)
    assert "Similar to `open()` but for sockets." in doc.markdown
    assert "read()" in doc.text


def test_a_share_prompt_after_an_article_goes_without_its_icons() -> None:
    share = "<p>Empfiehl dies deinen Freunden.</p><div>Nos siga no</div>"
    body = f"<p>{PROSE}</p><p>{PROSE}</p>{share}"
    doc = extract(article(body, head=ARTICLE_HEAD), URL)
    assert "Empfiehl" not in doc.text and "Nos siga" not in doc.text
    assert doc.text.count("The council met") == 6


def test_who_is_online_under_a_thread_goes() -> None:
    posts = "".join(f"<div class='post'><p>{PROSE} Reply {i}.</p></div>" for i in range(3))
    body = (
        f"{posts}<h3>Who is online</h3>"
        "<p>Users browsing this forum: Bingbot [Bot], loftwright and 7 guests</p>"
    )
    doc = extract(page(f"<main><h1>Warped first layer</h1>{body}</main>"), URL)
    assert "Reply 2." in doc.text
    assert "Who is online" not in doc.text and "Bingbot" not in doc.text


def test_photo_credits_and_an_agency_sign_off_go_but_a_source_line_stays() -> None:
    body = (
        f"<p>{PROSE}</p><p>Quelle: Landesregierung</p><p>{PROSE}</p>"
        "<p>Crédits photos : Bestimage</p><p>aja/PAP</p>"
    )
    doc = extract(article(body, head=ARTICLE_HEAD), URL)
    assert "Bestimage" not in doc.text and "PAP" not in doc.text
    assert "Quelle: Landesregierung" in doc.text


def test_thumbnail_teaser_cards_after_the_text_go_but_its_own_pictures_stay() -> None:
    cards = "".join(
        f"<a href='/story/{i}'><div class='col'><img src='/thumbs/{i}.jpg' alt=''>"
        f"<div>Another story of the week, number {i}</div></div></a>"
        for i in range(3)
    )
    own = (
        "<p><a href='/media/barrier-full.jpg'><img src='/media/barrier.jpg' alt='The barrier'>"
        "</a></p><figure><img src='/media/tide.jpg' alt='The tide'></figure>"
    )
    body = f"<p>{PROSE}</p><p>{PROSE}</p>{own}<div class='row'>{cards}</div>"
    doc = extract(article(body), URL)
    assert "Another story" not in doc.markdown
    assert "/media/barrier.jpg" in doc.markdown and "/media/tide.jpg" in doc.markdown
    assert doc.text.count("The council met") == 6


def test_a_further_information_list_of_the_site_goes_but_one_of_sources_stays() -> None:
    own = "".join(
        f"<li><a href='/themen/{i}'>Informationen zum Thema {i}</a></li>" for i in range(2)
    )
    body = f"<p>{PROSE}</p><p>{PROSE}</p><h3>Weiterführende Informationen</h3><ul>{own}</ul>"
    doc = extract(article(body), URL)
    assert "Informationen zum Thema" not in doc.text and "Weiterführende" not in doc.text
    sources = "".join(
        f"<li><a href='https://agency{i}.example/report'>Report of agency {i}</a></li>"
        for i in range(3)
    )
    body = f"<p>{PROSE}</p><p>{PROSE}</p><h3>Further information</h3><ul>{sources}</ul>"
    doc = extract(article(body), URL)
    assert "Report of agency 2" in doc.text


def test_advertising_and_affiliate_disclosures_go_but_text_about_advertising_stays() -> None:
    disclosures = (
        "<p><em>This post may contain affiliate links. If you buy through them, we may earn "
        "a commission at no extra cost to you.</em></p>"
        "<p>*Werbung. Dieser Beitrag enthält Werbung für Beispiel GmbH.</p>"
    )
    about = (
        "<p>The council's advertising budget for the barrier campaign doubled this year, "
        "and the sponsored posters went up in every district.</p>"
    )
    body = f"{disclosures}<p>{PROSE}</p>{about}<p>{PROSE}</p>"
    doc = extract(article(body, head=ARTICLE_HEAD), URL)
    assert "affiliate" not in doc.text and "Werbung" not in doc.text
    assert "advertising budget" in doc.text
    assert doc.text.count("The council met") == 6


def test_an_embeds_consent_placeholder_goes() -> None:
    placeholder = (
        "<div class='embed'><p>An dieser Stelle findet Ihr einen externen Inhalt von "
        "Instagram, der den Artikel ergänzt. Ihr könnt ihn Euch mit einem Klick anzeigen "
        "lassen.</p></div><div><p>We respect your privacy: the YouTube video sets cookies. "
        "<a href='/consent'>Click here to load it.</a></p></div>"
    )
    body = f"<p>{PROSE}</p>{placeholder}<p>{PROSE}</p><p>Third-party content is a topic.</p>"
    doc = extract(article(body, head=ARTICLE_HEAD), URL)
    assert "Instagram" not in doc.text and "YouTube" not in doc.text
    assert "Third-party content is a topic." in doc.text
    assert doc.text.count("The council met") == 6


def test_a_support_us_section_after_the_text_goes_but_a_manuals_section_stays() -> None:
    box = (
        "<h2>Unterstütze unser Magazin schon mit 2,50 Euro!</h2>"
        "<p>Es gibt kaum Magazine wie unseres, und unabhängiger Journalismus kostet Geld.</p>"
        "<p><a href='/spenden'>Jetzt spenden</a></p>"
    )
    body = f"<p>{PROSE}</p><p>{PROSE}</p>{box}"
    doc = extract(article(body, head=ARTICLE_HEAD), URL)
    assert "Unterstütze" not in doc.text and "Journalismus" not in doc.text
    assert doc.text.count("The council met") == 6
    manual = (
        f"<p>{PROSE}</p><p>{PROSE}</p><h2>Subscribe to the mailing list</h2>"
        "<p>Send a mail to the list's address with the word subscribe in its subject.</p>"
    )
    doc = extract(page(f"<article><h1>Mailing lists</h1>{manual}</article>"), URL)
    assert "Send a mail to the list" in doc.text, "no article: a manual's section"


def test_a_caption_that_repeats_its_pictures_alt_goes_but_a_lead_that_does_stays() -> None:
    alt = (
        "Workers set the first gate of the barrier into the harbour mouth in the early "
        "morning, while the tide was at its lowest point of the whole month"
    )
    figure = (
        f"<div class='pic'><div><a href='/big.jpg'><img src='/gate.jpg' alt='{alt}'></a></div>"
        f"<div class='legend'><div>{alt}.<br>Picture: Harbour Ledger staff</div></div></div>"
    )
    lead_alt = "The council approved the barrier on Friday after a long debate"
    hero = f"<img src='/hero.jpg' alt='{lead_alt}'>"
    body = f"{hero}<p>{lead_alt}, and {PROSE}</p>{figure}<p>{PROSE}</p>"
    doc = extract(article(body), URL)
    assert "Workers set the first gate" not in doc.text and "Ledger staff" not in doc.text
    assert doc.text.startswith(lead_alt), "a lead the hero's alt repeats is the text"
    assert "/gate.jpg" in doc.markdown, "the picture stays"
    kept = extract(article(body), URL, options=ExtractOptions(keep_captions=True))
    assert "Workers set the first gate" in kept.text
