"""What is done with a report: text and Markdown tables, the gate, the HTML report, conversion
and the comparison of two rounds."""
