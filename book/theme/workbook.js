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

// The language menu: the same page in each language of the book. The English book is
// built at the root (book/book/), each translation in a folder of its own
// (book/book/pt-BR/), with the same file names, so the other language's page is this
// page's path moved between the two roots. mdbook's own `path_to_root` says where this
// book's root is; <html lang> (the book's `language`) says which book this is.
(function languageMenu() {
    // English, then book/po/languages.toml's languages (book/i18n.py checks the two agree).
    const languages = [
        { code: "en", name: "English", folder: "" },
        { code: "pt-BR", name: "Português (Brasil)", folder: "pt-BR/" },
    ];
    const buttons = document.querySelector("#mdbook-menu-bar .right-buttons");
    if (!buttons || typeof path_to_root === "undefined") {
        return;
    }
    const current = languages.find((l) => l.code === document.documentElement.lang) || languages[0];
    const bookRoot = new URL(path_to_root || "./", window.location.href);
    const siteRoot = new URL(current.folder ? "../" : "./", bookRoot);
    let page = window.location.pathname.slice(bookRoot.pathname.length);
    if (page === "" || page.endsWith("/")) {
        page += "index.html";
    }

    const toggle = document.createElement("button");
    toggle.id = "workbook-language-toggle";
    toggle.className = "icon-button";
    toggle.type = "button";
    toggle.title = current.code === "pt-BR" ? "Idioma" : "Language";
    toggle.setAttribute("aria-label", toggle.title);
    toggle.setAttribute("aria-haspopup", "true");
    toggle.setAttribute("aria-expanded", "false");
    toggle.setAttribute("aria-controls", "workbook-language-list");
    toggle.textContent = current.code === "en" ? "EN" : current.code;

    const list = document.createElement("ul");
    list.id = "workbook-language-list";
    list.className = "theme-popup";
    list.setAttribute("role", "menu");
    list.setAttribute("aria-label", toggle.title);
    for (const language of languages) {
        const item = document.createElement("li");
        item.setAttribute("role", "none");
        const link = document.createElement("a");
        link.setAttribute("role", "menuitem");
        link.className = "theme";
        link.lang = language.code;
        link.hreflang = language.code;
        link.textContent = language.name;
        link.href = new URL(language.folder + page, siteRoot).href + window.location.hash;
        if (language === current) {
            link.classList.add("theme-selected");
            link.setAttribute("aria-current", "page");
        }
        item.appendChild(link);
        list.appendChild(item);
    }

    function show(open) {
        list.style.display = open ? "block" : "none";
        toggle.setAttribute("aria-expanded", String(open));
    }
    toggle.addEventListener("click", () => show(list.style.display !== "block"));
    document.addEventListener("click", (event) => {
        if (!toggle.contains(event.target) && !list.contains(event.target)) {
            show(false);
        }
    });
    list.addEventListener("keydown", (event) => {
        if (event.key === "Escape") {
            show(false);
            toggle.focus();
        }
    });
    // An anchor followed within the page changes the hash the links carry.
    window.addEventListener("hashchange", () => {
        list.querySelectorAll("a").forEach((a) => {
            a.hash = window.location.hash;
        });
    });
    buttons.prepend(toggle, list);
})();

// The interface mdBook draws itself (its index.hbs, book.js and searcher.js, which a
// book cannot replace: searcher.js is compiled into mdbook) speaks English. In a
// translated book, each of its words is said in the page's language (<html lang>),
// from this table: mdBook's English word, and the translation. What mdBook draws later
// (a search's results line, a code block's "Copied!") is said too, as it appears.
// "Show hidden lines" / "Hide lines" stay as they are: book.js reads that title back
// to know which way to toggle.
(function interfaceWords() {
    const translations = {
        "pt-BR": {
            "Table of contents": "Sumário",
            "Toggle Table of Contents": "Mostrar ou esconder o sumário",
            "Change theme": "Mudar o tema",
            "Themes": "Temas",
            "Auto": "Automático",
            "Light": "Claro",
            "Coal": "Carvão",
            "Navy": "Azul-marinho",
            "Search (`/`)": "Buscar (`/`)",
            "Toggle Searchbar": "Mostrar ou esconder a busca",
            "Search this book ...": "Buscar neste livro ...",
            "Print this book": "Imprimir este livro",
            "Git repository": "Repositório git",
            "Suggest an edit": "Sugerir uma edição",
            "Page navigation": "Navegação entre as páginas",
            "Previous chapter": "Capítulo anterior",
            "Next chapter": "Próximo capítulo",
            "Copy to clipboard": "Copiar para a área de transferência",
            "Copied!": "Copiado!",
            "Clipboard error!": "Erro ao copiar!",
            "Run this code": "Rodar este código",
            "Undo changes": "Desfazer as alterações",
            "Running...": "Rodando...",
            "No output": "Nenhuma saída",
        },
    };
    // searcher.js's results line, by its English shape: [pattern, the line said].
    const results = {
        "pt-BR": [
            [/^1 search result for '(.*)':$/s, (term) => `1 resultado para '${term}':`],
            [/^(\d+) search results for '(.*)':$/s, (count, term) => `${count} resultados para '${term}':`],
            [/^No search results for '(.*)'\.$/s, (term) => `Nenhum resultado para '${term}'.`],
        ],
    };
    const lang = document.documentElement.lang;
    const words = translations[lang];
    if (!words) {
        return;
    }
    const attributes = ["title", "aria-label", "placeholder"];
    function sayAttributes(element) {
        for (const name of attributes) {
            const said = words[element.getAttribute(name)];
            if (said !== undefined) {
                element.setAttribute(name, said);
            }
        }
    }
    function sayText(element) {
        const text = element.textContent;
        let said = words[text];
        for (const [shape, say] of results[lang] || []) {
            const found = said === undefined && shape.exec(text);
            if (found) {
                said = say(...found.slice(1));
            }
        }
        if (said !== undefined && said !== text) {
            element.textContent = said;
        }
    }
    // What the page holds now: attributes, the theme menu's items, a code block's output.
    document.querySelectorAll("[title], [aria-label], [placeholder]").forEach(sayAttributes);
    document
        .querySelectorAll("#mdbook-theme-list button.theme, #mdbook-searchresults-header, .result")
        .forEach(sayText);
    // What mdBook's scripts write afterwards.
    new MutationObserver((changes) => {
        for (const change of changes) {
            if (change.type === "attributes") {
                sayAttributes(change.target);
                continue;
            }
            const element =
                change.target.nodeType === Node.ELEMENT_NODE ? change.target : change.target.parentElement;
            if (element && (element.id === "mdbook-searchresults-header" || element.classList.contains("result"))) {
                sayText(element);
            }
            change.addedNodes.forEach((node) => {
                if (node.nodeType === Node.ELEMENT_NODE) {
                    sayAttributes(node);
                    node.querySelectorAll("[title], [aria-label]").forEach(sayAttributes);
                }
            });
        }
    }).observe(document.body, {
        subtree: true,
        childList: true,
        characterData: true,
        attributes: true,
        attributeFilter: attributes,
    });
})();
