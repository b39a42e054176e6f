"""A sphinx-gallery image scraper for figures that never pass through pyplot.

``confboost.plot`` draws on ``matplotlib.figure.Figure`` objects it makes itself (no pyplot,
no global state), which the gallery's matplotlib scraper, reading pyplot's figure list,
cannot see. This one saves every Figure bound to a name of the example that it has not
saved yet, after each code block. sphinx-gallery finds it by module name
(``image_scrapers = ("confboost_scraper",)``), through ``_get_sg_image_scraper``.
"""


def scrape_figures(block, block_vars, gallery_conf):
    """Save the example's new Figures; return their reST (sphinx-gallery's scraper API)."""
    from matplotlib.figure import Figure
    from sphinx_gallery.scrapers import figure_rst

    seen = block_vars.setdefault("confboost_saved_figures", set())
    images = []
    for value in list(block_vars["example_globals"].values()):
        if isinstance(value, Figure) and id(value) not in seen:
            seen.add(id(value))
            path = next(block_vars["image_path_iterator"])
            value.savefig(path, dpi=110, bbox_inches="tight")
            images.append(path)
    return figure_rst(images, gallery_conf["src_dir"])


def _get_sg_image_scraper():
    return scrape_figures
