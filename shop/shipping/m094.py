import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_94_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-94-0'
    return [line.qty * factor for line in cart.lines]


def step_94_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-94-1'
    return [line.qty * factor for line in cart.lines]


def step_94_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-94-2'
    return [line.qty * factor for line in cart.lines]


def step_94_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-94-3'
    return [line.qty * factor for line in cart.lines]

