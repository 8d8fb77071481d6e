from swetui.cli import main

raise SystemExit(main())
