"""The report in a notebook: tables as pandas DataFrames (:mod:`.frames`), charts as matplotlib
figures (:mod:`.figures`, also the charts of the HTML report) and the report's own HTML for
Jupyter (:mod:`.display`). pandas and matplotlib are optional (``pip install
'spanagree[notebook]'``) and imported only when a table or a chart is asked for."""
