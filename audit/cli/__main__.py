from audit.cli import main

main()
