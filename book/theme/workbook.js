// The workbook's few additions to mdbook's scripts.
"use strict";

// Number the lines of every listing inside <div class="numbered"> (the review's
// routes, whose answers cite line numbers), in a gutter beside the code. The code
// itself is left as highlighted: nothing is rewritten inside it.
document.querySelectorAll(".content .numbered pre > code").forEach((code) => {
    const lines = code.textContent.replace(/\n$/, "").split("\n").length;
    const gutter = document.createElement("span");
    gutter.className = "line-numbers";
    gutter.setAttribute("aria-hidden", "true");
    gutter.textContent = Array.from({ length: lines }, (_, i) => String(i + 1)).join("\n");
    code.parentElement.insertBefore(gutter, code);
});

// Each diagram is a link to itself (tap to open it full size): mark those links so
// that the stylesheet lets a diagram scroll sideways on a narrow screen.
document.querySelectorAll(".content a > img[src$='.svg']").forEach((img) => {
    if (img.parentElement.getAttribute("href") === img.getAttribute("src")) {
        img.parentElement.classList.add("diagram");
    }
});
